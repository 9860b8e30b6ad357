#!/usr/bin/env bash
# Fails when a C++ file does not follow .clang-format. Fix with:
#   clang-format -i $(git ls-files '*.cpp' '*.hpp')
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
files=$(find actors apps messages runtime tests -name '*.cpp' -o -name '*.hpp' | sort)
bad=0
for f in $files; do
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f"
    bad=1
  fi
done
[ "$bad" = 0 ] && echo "format ok ($(echo "$files" | wc -l) files)"
exit $bad
