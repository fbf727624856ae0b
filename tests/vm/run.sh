#!/bin/sh
# The case runner of the systemd VM, /fbvm/run.sh: fbvm-case.service (ordered after
# multi-user.target) runs it with fd 3 on /dev/ttyS1, then powers the guest off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=linux
stty -F /dev/ttyS1 raw -echo
exec 3<>/dev/ttyS1
echo fbvm-boot >&3
(. /fbvm/fbvm.sh && cd / && . /fbvm/case.sh) </dev/null
echo "fbvm-exit $?" >&3
systemctl poweroff -ff
