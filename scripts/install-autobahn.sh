#!/usr/bin/env bash
# Installs Autobahn|Testsuite's wstest into .venv-ab. It is Python 2 only (see
# ../shared/conformance.md), and Debian 12 has no Python 2.7, so we take python2.7 from
# Debian 11 with a pin that lets nothing else in from there.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv-ab/bin/wstest ] && .venv-ab/bin/wstest --autobahnversion >/dev/null 2>&1 && exit 0

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ ! -x /usr/bin/python2.7 ]; then
  echo "install-autobahn: installing python2.7 from bullseye (pinned)"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  else
    MIRROR=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
  fi
  echo "deb $MIRROR bullseye main" | $SUDO tee /etc/apt/sources.list.d/bullseye.list >/dev/null
  printf 'Package: *\nPin: release n=bullseye\nPin-Priority: 100\n' | $SUDO tee /etc/apt/preferences.d/bullseye >/dev/null
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=600 python2.7 python2.7-dev gcc >/dev/null
fi
[ -x .venv-tools/bin/virtualenv ] || { python3 -m venv .venv-tools && .venv-tools/bin/pip install -q --disable-pip-version-check virtualenv==20.21.1; }
[ -x .venv-ab/bin/pip ] || .venv-tools/bin/virtualenv -q -p /usr/bin/python2.7 .venv-ab
# Upstream's own requirements pins: the newest versions that still run on Python 2.7.
.venv-ab/bin/pip install -q --disable-pip-version-check setuptools==44.0.0 txaio==2.1.0 incremental==16.10.1 \
  pyOpenSSL==19.1.0 cryptography==3.3.2 Twisted==19.10.0 zope.interface==4.6.0 jinja2==2.11.3 \
  markupsafe==1.1.1 Werkzeug==1.0.1 klein==17.10.0 service_identity==18.1.0 unittest2==1.1.0 six==1.16.0 \
  'autobahn[twisted,accelerate]==0.10.9' 2>&1 | grep -v -i "deprecat" || true
.venv-ab/bin/pip install -q --disable-pip-version-check --no-deps autobahntestsuite==25.10.1 2>&1 | grep -v -i deprecat || true
.venv-ab/bin/wstest --autobahnversion
