dnl SPDX-License-Identifier: BSD-3-Clause
dnl HM_WARNINGS: the warning set of STYLE.md, errors included.
AC_DEFUN([HM_WARNINGS], [
  HM_CFLAGS="-std=gnu11 -Wall -Wextra -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes -Wshadow -Wundef -Wwrite-strings -Werror"
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--disable-werror], [do not turn warnings into errors])],
    [], [enable_werror=yes])
  AS_IF([test "x$enable_werror" = xno],
    [HM_CFLAGS=`echo "$HM_CFLAGS" | sed 's/ -Werror//'`])
  AC_SUBST([HM_CFLAGS])
])
