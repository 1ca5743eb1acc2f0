dnl SPDX-License-Identifier: BSD-3-Clause
dnl HM_SANITIZERS: --enable-sanitizers builds with ASan and UBSan.
AC_DEFUN([HM_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers], [build with AddressSanitizer and UndefinedBehaviorSanitizer])],
    [], [enable_sanitizers=no])
  HM_SAN_CFLAGS=""
  HM_SAN_LDFLAGS=""
  AS_IF([test "x$enable_sanitizers" = xyes], [
    HM_SAN_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
    HM_SAN_LDFLAGS="-fsanitize=address,undefined"
  ])
  AC_SUBST([HM_SAN_CFLAGS])
  AC_SUBST([HM_SAN_LDFLAGS])
  AM_CONDITIONAL([HM_SANITIZERS], [test "x$enable_sanitizers" = xyes])
])
