#!/bin/sh
# Install Debian's chromium package, which the web chat's browser test (web/browser_test.go) drives
# headless through the DevTools protocol at /usr/bin/chromium. Runs once: when the browser is already
# there it returns at once.
#
# Why Debian's package: machines here reach Debian's archive but not Google's download servers, so
# chromedp's own download helpers and Chrome for Testing builds cannot be used. Installing needs root
# and apt-get; anything else fails loudly with what to do, because in CI (CI=true) the browser test
# fails rather than skips without a browser.
set -eu

say() { echo "install-chromium: $*" >&2; }
die() { say "$*"; exit 1; }

bin=/usr/bin/chromium
# Fonts make the test's screenshots readable (Latin text and the emoji in the bot's messages).
packages="chromium fonts-liberation fonts-noto-color-emoji"

# installed reports whether dpkg has every package installed (not merely known or removed).
installed() {
    command -v dpkg-query >/dev/null 2>&1 || return 1
    for p in $packages; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
    done
}

if [ -x "$bin" ] && { installed || ! command -v apt-get >/dev/null 2>&1; }; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
    if [ -x "$bin" ]; then
        say "$bin is there but some fonts are not ($packages); screenshots may show boxes for emoji"
        exit 0
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        die "$bin is missing and apt-get is not available here.
  Install Chromium with your system's package manager so that $bin exists, then run: make chromium"
    fi
    die "$bin is missing and installing it needs root.
  Run: sudo apt-get update && sudo apt-get install -y $packages   (or: sudo make chromium)"
fi

say "installing Debian's chromium package (about a minute on first install)"
start=$(date +%s)
DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || die "apt-get update failed (see above)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $packages >&2 ||
    die "apt-get install chromium failed (see above)"

[ -x "$bin" ] || die "apt-get finished but $bin does not exist"
say "installed $("$bin" --version 2>/dev/null || echo chromium) in $(($(date +%s) - start))s"
