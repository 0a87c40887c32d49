#!/bin/sh
# Regenerates expected.txt: libtraceevent 1.7.1 with its Debian plugins printing the records of
# cases.txt. Needs libtraceevent-dev and libtraceevent1-plugin. Run: sh tests/data/printers/make-oracle.sh
set -e
cd "$(dirname "$0")"
cc -O1 -o /tmp/printers_oracle ../../printers/oracle/printers_oracle.c $(pkg-config --cflags --libs libtraceevent)
/tmp/printers_oracle cases.txt .. > expected.txt
