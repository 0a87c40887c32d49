#!/bin/sh
# Regenerates expected.txt: libtraceevent 1.7.1's kvm plugin on the records of cases.txt.
# Needs Debian's libtraceevent-dev and libtraceevent1-plugin. Run: sh make-oracle.sh
set -e
cd "$(dirname "$0")"
cc -O1 -rdynamic -o /tmp/kvm_plugin_oracle kvm_plugin_oracle.c $(pkg-config --cflags --libs libtraceevent)
/tmp/kvm_plugin_oracle cases.txt .. > expected.txt
