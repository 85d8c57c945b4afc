#!/usr/bin/env bash
# compile-tests.sh [PKGS…] — builds the test binaries of PKGS (default ./...) without running a
# test, a line per package as it is built, so that the minutes a cold build takes are not minutes
# of silence. make test runs it before gotestsum, whose run then reuses the build cache.
set -euo pipefail
GO=${GO:-go}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)
echo "compiling the test binaries of ${pkgs[*]} (a cold build takes minutes on a busy machine; a line per package as it is built) …"
start=$(date +%s)
# -exec true: each test binary is built, then handed to true(1) instead of being run.
"$GO" test -count=1 -exec true -run '^$' "${pkgs[@]}" 2>&1 |
	awk '/^(ok|\?) / { sub(/^(ok|\?)[ \t]+/, ""); sub(/\t[0-9.]+s$/, ""); sub(/\t\[no test files\]$/, " (no tests)"); print "  built " $0; fflush(); next }
	     { print; fflush() }'
echo "compiled in $(($(date +%s) - start)) s; running the tests"
