#!/usr/bin/env bash
# Install the companion hub as an appliance on Raspberry Pi OS Lite (Debian 12 or later):
# mosquitto, espeak-ng and aplay from apt, the hub in a venv, /etc/companion/hub.toml, and
# companion-hub.service enabled and started; at the end it prints the dashboard's address on
# the network and a QR code for it (`companion address`).
#
#   sudo deploy/install-hub.sh            # from a checkout, e.g. git clone ... /opt/companion
#   sudo deploy/install-hub.sh --kiosk    # also show the dashboard full screen on an attached display
#
# A Pi that already runs mosquitto (for Home Assistant, Zigbee2MQTT...) keeps it: by default the
# table then uses that broker through /etc/mosquitto/conf.d/companion.conf (a listener with the
# table's password file and ACL); with --broker own, or when that broker's own settings would
# clash, the hub runs its own mosquitto on port 1884 instead. The last lines say which.
#
# Running it again updates the hub and keeps an existing /etc/companion/hub.toml.
#
# --root DIR writes every file under DIR instead of / and only prints the commands that would
# change the system (apt-get, useradd, systemctl): the tests run it like that. --dry-run prints
# those commands without a throwaway root (files are still written).
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX=/opt/companion
ROOT=""
KIOSK=0
BROKER=auto
OWN_PORT=1884   # the hub's own broker when the system's keeps 1883
DRY_RUN="${DRY_RUN:-0}"
PACKAGE=""
ASOUND_CARDS="${ASOUND_CARDS:-/proc/asound/cards}"
PYTHON="${PYTHON:-python3}"
APT_CACHE="${APT_CACHE:-apt-cache}"   # the tests put a stand-in here

usage() {
    sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    cat <<'USAGE'
Options:
  --kiosk          also install cage and Chromium and start the dashboard on the screen
  --broker MODE    auto (default), system (use the mosquitto this machine already runs) or own
                   (the hub's own mosquitto: on 1883, or on 1884 beside a system mosquitto)
  --prefix DIR     where the venv goes (DIR/.venv); default /opt/companion
  --package PATH   install this wheel or source tree instead of the checkout
  --root DIR       write files under DIR, only print system commands (for tests)
  --dry-run        only print system commands
  -h, --help       this text
USAGE
}

die() { printf 'install-hub: %s\n' "$*" >&2; exit 1; }
say() { printf '==> %s\n' "$*"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --kiosk) KIOSK=1 ;;
        --broker) [ $# -ge 2 ] || die "--broker needs auto, system or own"; BROKER="$2"; shift ;;
        --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; PREFIX="$2"; shift ;;
        --package) [ $# -ge 2 ] || die "--package needs a wheel or a source tree"; PACKAGE="$2"; shift ;;
        --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT="$(cd "$2" && pwd)" || exit 1; shift ;;
        --dry-run) DRY_RUN=1 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
[ -n "$ROOT" ] && DRY_RUN=1
case "$PREFIX" in /*) ;; *) die "--prefix must be an absolute path, not $PREFIX" ;; esac
PACKAGE="${PACKAGE:-$SRC}"
case "$BROKER" in auto|system|own) ;; *) die "--broker must be auto, system or own, not $BROKER" ;; esac

# A command that changes the system: run it, or print it in a dry run.
system() {
    if [ "$DRY_RUN" = 1 ]; then
        printf '+ %s\n' "$*"
    else
        "$@"
    fi
}

if [ "$DRY_RUN" != 1 ] && [ "$(id -u)" != 0 ]; then
    die "run it as root: sudo $0 $*"
fi
if [ "$DRY_RUN" != 1 ] && ! command -v apt-get >/dev/null; then
    die "this script is for Raspberry Pi OS or Debian (apt-get); see docs/install.md for other systems"
fi

VENV="$ROOT$PREFIX/.venv"
CONF_DIR="$ROOT/etc/companion"
CONF="$CONF_DIR/hub.toml"
UNIT_DIR="$ROOT/etc/systemd/system"

# --- a mosquitto this machine already runs (looked at before apt-get, which would start one) ---
MOSQ_DIR="$ROOT/etc/mosquitto"
mosquitto_runs() {
    [ -e "$MOSQ_DIR/mosquitto.conf" ] || return 1
    [ -e "$ROOT/etc/systemd/system/multi-user.target.wants/mosquitto.service" ] && return 0
    [ -z "$ROOT" ] && command -v systemctl >/dev/null && systemctl is-active --quiet mosquitto.service
}
# Settings of the system's broker that the table's conf.d file cannot share: mosquitto 2.0 takes one
# password file and ACL for every listener (per_listener_settings must come before all of them),
# and 1883 can have only one listener. Prints the first such line.
mosquitto_clash() {
    local files=("$MOSQ_DIR/mosquitto.conf")
    [ -d "$MOSQ_DIR/conf.d" ] && for f in "$MOSQ_DIR"/conf.d/*.conf; do
        [ -e "$f" ] && [ "$(basename "$f")" != companion.conf ] && files+=("$f")
    done
    grep -hE '^[[:space:]]*(listener|port|password_file|acl_file|allow_anonymous|per_listener_settings|plugin|auth_plugin|psk_file)([[:space:]]|$)' \
        "${files[@]}" 2>/dev/null | head -n 1 || true
}
SYSTEM_MOSQUITTO=0
mosquitto_runs && SYSTEM_MOSQUITTO=1
clash=""
[ "$SYSTEM_MOSQUITTO" = 1 ] && clash="$(mosquitto_clash)"
case "$BROKER" in
    auto)
        if [ "$SYSTEM_MOSQUITTO" = 1 ] && [ -z "$clash" ]; then BROKER=system
        else BROKER=own; fi ;;
    system)
        [ "$SYSTEM_MOSQUITTO" = 1 ] || die "--broker system: this machine runs no mosquitto service (leave --broker out)"
        [ -z "$clash" ] || die "--broker system: /etc/mosquitto has its own '$clash', which the table's listener cannot share; use --broker own" ;;
esac
if [ "$SYSTEM_MOSQUITTO" = 1 ]; then
    if [ "$BROKER" = system ]; then
        say "mosquitto already runs here: the table uses it (/etc/mosquitto/conf.d/companion.conf)"
    else
        say "mosquitto already runs here and keeps port 1883${clash:+ (its settings have '$clash')}: the hub runs its own on $OWN_PORT"
    fi
fi

say "packages: mosquitto (the table's broker), espeak-ng and alsa-utils (spoken cues), python3-venv"
packages=(python3-venv mosquitto espeak-ng alsa-utils)
system apt-get update -qq
if [ "$KIOSK" = 1 ]; then
    # Asked after the update (a fresh image knows no package lists yet), and in a dry run too: the
    # name differs between releases (chromium on Debian and Raspberry Pi OS 13, chromium-browser on
    # Raspberry Pi OS 12), and a wrong one would stop apt-get install.
    browser=""
    if command -v "$APT_CACHE" >/dev/null; then
        for candidate in chromium chromium-browser; do
            if "$APT_CACHE" show --no-all-versions "$candidate" >/dev/null 2>&1; then
                browser="$candidate"
                break
            fi
        done
        [ -n "$browser" ] || die "apt knows neither chromium nor chromium-browser: check /etc/apt/sources.list, or install without --kiosk"
    elif [ "$DRY_RUN" = 1 ]; then
        browser=chromium
        say "  (no apt-cache here: chromium not checked)"
    else
        die "apt-cache is missing: this script needs Debian's apt"
    fi
    say "  the kiosk's browser: $browser"
    packages+=(cage "$browser")
fi
system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"

say "user companion (owns /var/lib/companion: game logs, node credentials, broker state)"
if [ "$DRY_RUN" = 1 ] || ! id companion >/dev/null 2>&1; then
    system useradd --system --user-group --home-dir /var/lib/companion --no-create-home \
        --shell /usr/sbin/nologin companion
fi
groups=audio
[ "$KIOSK" = 1 ] && groups=audio,video,render,input
system usermod --append --groups "$groups" companion

say "the hub in $PREFIX/.venv (from $PACKAGE)"
mkdir -p "$(dirname "$VENV")"
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
# The hub alone: mosquitto comes from apt, so the in-process broker (the [broker] extra) is not needed.
# COMPANION_PIP replaces the pip command (the tests install a prebuilt wheel offline with it).
pip_cmd=("$VENV/bin/python" -m pip)
if [ -n "${COMPANION_PIP:-}" ]; then
    read -r -a pip_cmd <<<"$COMPANION_PIP"
fi
"${pip_cmd[@]}" install --quiet --upgrade "$PACKAGE"
"$VENV/bin/companion" --version >/dev/null || die "the hub did not install: $VENV/bin/companion does not run"

say "settings in /etc/companion/hub.toml"
mkdir -p "$CONF_DIR"
if [ -e "$CONF" ]; then
    say "  kept the existing /etc/companion/hub.toml"
else
    cp "$SRC/deploy/hub.toml" "$CONF"
    chmod 644 "$CONF"
    if [ -r "$ASOUND_CARDS" ] && grep -q '^ *[0-9]' "$ASOUND_CARDS"; then
        say "  sound card found: cues play on the speaker"
    else
        sed -i 's/^local_playback = true /local_playback = false/' "$CONF"
        say "  no sound card found: local_playback = false (set it to true once a speaker is attached)"
    fi
    case "$BROKER:$SYSTEM_MOSQUITTO" in
        system:*)   # the system's mosquitto, through conf.d/companion.conf
            sed -i 's|^port = 1883 .*$|system = true                  # the system'"'"'s mosquitto serves the table (conf.d/companion.conf)\nurl = "mqtt://127.0.0.1:1883"|' "$CONF" ;;
        own:1)      # the hub's own beside the system's, which keeps 1883
            sed -i "s|^port = 1883 |port = $OWN_PORT |" "$CONF" ;;
    esac
fi
TABLE="$("$VENV/bin/python" -c 'import sys; from companion.config_file import load_config_file
print(load_config_file(sys.argv[1]).get("hub", {}).get("table", "demo"))' "$CONF")"
if [ "$BROKER" = system ]; then
    mkdir -p "$MOSQ_DIR/conf.d"
    cat >"$MOSQ_DIR/conf.d/companion.conf" <<MOSQ
# Made by companion's install-hub.sh for table $TABLE (running it again rewrites this file).
# The hub, the table's nodes and Home Assistant (companion ha add) log in with the table's users;
# any other client of this broker needs a user there too: mosquitto takes one password file
# and one ACL for all its listeners. Remove this file and restart mosquitto to undo it.
listener 1883
allow_anonymous false
password_file /var/lib/companion/auth/$TABLE/mosquitto.passwd
acl_file /var/lib/companion/auth/$TABLE/mosquitto.acl
set_tcp_nodelay true
max_queued_messages 10000
MOSQ
    chmod 644 "$MOSQ_DIR/conf.d/companion.conf"
fi
"$VENV/bin/companion" run --config "$CONF" --check-config

if [ -d "$ROOT/etc/avahi/services" ]; then
    # Raspberry Pi OS runs avahi-daemon: the hub announces the table through it (one responder, the
    # Pi's own name), in a file it may write although /etc is read-only to it.
    say "avahi-daemon: the table is announced through it (/etc/avahi/services/companion-hub.service)"
    [ -e "$ROOT/etc/avahi/services/companion-hub.service" ] || : >"$ROOT/etc/avahi/services/companion-hub.service"
    chmod 644 "$ROOT/etc/avahi/services/companion-hub.service"
    system chown companion:companion /etc/avahi/services/companion-hub.service
fi

say "systemd units"
mkdir -p "$UNIT_DIR"
sed "s#/opt/companion#$PREFIX#g" "$SRC/deploy/companion-hub.service" >"$UNIT_DIR/companion-hub.service"
units=(companion-hub.service)
if [ "$KIOSK" = 1 ]; then
    sed "s#/opt/companion#$PREFIX#g" "$SRC/deploy/companion-kiosk.service" >"$UNIT_DIR/companion-kiosk.service"
    mkdir -p "$ROOT/usr/local/bin"
    install -m 755 "$SRC/deploy/companion-kiosk" "$ROOT/usr/local/bin/companion-kiosk"
    units+=(companion-kiosk.service)
fi
if [ "$BROKER" = system ]; then
    for unit in companion-broker-reload@.path companion-broker-reload@.service; do
        sed "s#/opt/companion#$PREFIX#g" "$SRC/deploy/$unit" >"$UNIT_DIR/$unit"
    done
fi
system systemctl daemon-reload
case "$BROKER:$SYSTEM_MOSQUITTO" in
    system:*)
        # mosquitto reads the table's password file and ACL through the companion group; the files
        # must exist before it restarts with companion.conf, and it reloads them when they change.
        system usermod --append --groups companion mosquitto
        system runuser -u companion -- "$PREFIX/.venv/bin/companion" node files --config /etc/companion/hub.toml --share-with-broker
        system systemctl enable --now "companion-broker-reload@$TABLE.path"
        system systemctl restart mosquitto.service
        broker_line="the system's mosquitto on port 1883, through /etc/mosquitto/conf.d/companion.conf (its other clients now need a user: companion ha add for Home Assistant)" ;;
    own:1)
        broker_line="the hub's own mosquitto on port $OWN_PORT; the system's mosquitto keeps 1883 as it was${clash:+ (its settings have '$clash')}" ;;
    *)
        # The hub starts mosquitto itself, locked to the table's nodes (docs/security.md); Debian's own
        # mosquitto service (just installed) would hold port 1883 with an open broker: switched off.
        system systemctl disable --now mosquitto.service
        broker_line="the hub's own mosquitto on port 1883" ;;
esac
system systemctl enable --now "${units[@]}"

if [ "$DRY_RUN" != 1 ]; then
    say "waiting for the hub"
    port="$("$VENV/bin/python" -c 'import sys; from companion.config_file import load_config_file
print(load_config_file(sys.argv[1]).get("hub", {}).get("port", 8080))' "$CONF")"
    for _ in $(seq 60); do
        if "$VENV/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
            "http://127.0.0.1:$port/" 2>/dev/null; then
            break
        fi
        sleep 1
    done
    systemctl --no-pager --lines=0 status companion-hub.service || true
fi

say "done"
if ! "$VENV/bin/companion" address --config "$CONF"; then
    say "no network address yet: join the Wi-Fi, then run $PREFIX/.venv/bin/companion address"
fi
say "broker: $broker_line"
cat <<NEXT
Next:
  the host PIN (to control the table from a phone): journalctl -u companion-hub | grep PIN
  a real node's credentials:  sudo -u companion $PREFIX/.venv/bin/companion node add red-1 --config /etc/companion/hub.toml
  Home Assistant's login:     sudo -u companion $PREFIX/.venv/bin/companion ha add --config /etc/companion/hub.toml
  the hub's log:              journalctl -u companion-hub -f
  settings:                   /etc/companion/hub.toml, then: sudo systemctl restart companion-hub
NEXT
