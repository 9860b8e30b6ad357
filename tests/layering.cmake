# Fails when a file includes one it must not (docs/architecture.md, "Folder
# map"). Layers: apps -> actors -> runtime -> messages, never the other way.
# Sides: client code (runtime/client, actors/client) and server code (the
# broker's, the store's and the NameServer's) never include each other; they
# share only messages/, the message format (runtime/message), the remoting
# wire codec (runtime/remoting) and common code.
set(client "runtime/client|actors/client")
set(server "runtime/broker|runtime/storage|runtime/namesrv|actors/broker|actors/namesrv")
set(below_sides "${client}|${server}")
# Each rule: a folder, then the folders its files must not include.
set(rules
  "messages|runtime|actors|apps"
  "runtime|actors|apps"
  "actors|apps"
  "runtime/common|runtime/message|runtime/net|runtime/process|${below_sides}"
  "runtime/message|runtime/net|runtime/process|${below_sides}"
  "runtime/net|runtime/process|${below_sides}"
  "runtime/process|${below_sides}"
  "runtime/remoting|runtime/process|${below_sides}"
  "runtime/storage|runtime/net|runtime/process|runtime/broker|runtime/namesrv|runtime/client"
  "actors/common|${below_sides}"
  "runtime/client|${server}"
  "actors/client|${server}"
  "runtime/broker|${client}|runtime/namesrv|actors/namesrv"
  "actors/broker|${client}|runtime/namesrv|actors/namesrv"
  "runtime/namesrv|${client}|runtime/broker|runtime/storage|actors/broker"
  "actors/namesrv|${client}|runtime/broker|runtime/storage|actors/broker")
set(bad "")
foreach(rule ${rules})
  string(REPLACE "|" ";" parts "${rule}")
  list(GET parts 0 layer)
  list(REMOVE_AT parts 0)
  string(REPLACE ";" "|" alt "${parts}")
  file(GLOB_RECURSE files ${SRC}/${layer}/*.hpp ${SRC}/${layer}/*.cpp)
  foreach(f ${files})
    file(STRINGS ${f} hits REGEX "^#include \"(${alt})/")
    foreach(h ${hits})
      list(APPEND bad "${f}: ${h}")
    endforeach()
  endforeach()
endforeach()
if(bad)
  list(REMOVE_DUPLICATES bad)
  string(REPLACE ";" "\n" text "${bad}")
  message(FATAL_ERROR "layering violated:\n${text}")
endif()
message(STATUS "layering ok")
