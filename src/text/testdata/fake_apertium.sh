#!/bin/sh
# A stand-in for `apertium -u <pair>` in apertium_test: upper-cases each line and
# breaks a line holding SPLIT into two lines, as a misbehaving translator would.
sed -e 's/SPLIT/SPLIT\n/' | tr a-z A-Z
