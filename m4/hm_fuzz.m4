dnl SPDX-License-Identifier: BSD-3-Clause
dnl HM_FUZZ: the fuzz targets need clang's libFuzzer (Debian package clang);
dnl without it they are not built and their test skips, saying so.
AC_DEFUN([HM_FUZZ], [
  AC_PATH_PROG([CLANG], [clang])
  hm_fuzz=no
  AS_IF([test -n "$CLANG"], [
    AC_MSG_CHECKING([whether $CLANG can build libFuzzer targets])
    cat >conftest-fuzz.c <<_HM_EOF
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
_HM_EOF
    AS_IF([$CLANG -fsanitize=fuzzer,address,undefined conftest-fuzz.c -o conftest-fuzz >&AS_MESSAGE_LOG_FD 2>&1],
      [hm_fuzz=yes])
    rm -f conftest-fuzz.c conftest-fuzz
    AC_MSG_RESULT([$hm_fuzz])
  ])
  AM_CONDITIONAL([HM_FUZZ], [test "x$hm_fuzz" = xyes])
  dnl tests/unit/test_symbols reads guests clang built as well as gcc
  AM_CONDITIONAL([HM_CLANG], [test -n "$CLANG"])
])
