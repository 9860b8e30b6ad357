// Works around three gaps of CAF 0.17's openssl module.
//
// 1. One bad TLS peer could cut every other TLS connection of the process.
// OpenSSL keeps an error queue per thread, and SSL_get_error() reports
// SSL_ERROR_SSL whenever that queue is not empty, so OpenSSL asks callers to
// empty it before each SSL_read/SSL_write/SSL_accept/SSL_connect. CAF's
// openssl module empties it only inside CAF_LOG_INFO, which Debian's build
// compiles out. All sessions share the I/O thread: after one failed
// handshake (a plain-TCP peer, a foreign certificate, 32 bytes of garbage)
// the next read on any good connection "fails" and CAF closes it. Verified:
// a stand-in broker lost its NameServer connection to one garbage peer.
//
// 2. CAF sets TCP_NODELAY on plain connections (strace: right after
// connect()), but its openssl module makes client sockets on its own and
// skips that (accepted ones inherit it from the listening socket), so
// Nagle's algorithm could hold back a TLS client's small BASP messages.
//
// 3. It loads the certificate chain, the key and the CA file from disk for
// every connection: with descriptors used up (idle peers need no
// certificate) a load failed and CAF threw, aborting the node.
//
// The fix defines those functions in our executables; the dynamic linker
// then binds libcaf_openssl's calls to them. SSL_read/write/accept/connect
// empty the queue (accept and connect also set TCP_NODELAY) and call the
// real one, found with dlsym(RTLD_NEXT); the three loaders load each file
// once into a template context and hand every later context its objects
// (a changed file is read again only by a new process).
#pragma once

namespace rmq {

/// Returns whether the wrappers are in place (the calls of libcaf_openssl
/// reach them). Calling it also makes the linker keep them.
bool openssl_fixes_linked();

} // namespace rmq
