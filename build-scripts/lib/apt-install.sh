# Sourced by the set-up scripts (build-scripts/setup.sh, tests/publish/setup.sh), which define log().
# apt_install_missing <what> [package…]: installs the Debian packages named (the caller's missing
# ones) with one apt-get update, as root, printing each step; with none named it says <what> are
# all present. Not root and something missing: it names the packages and exits 1.
apt_install_missing() {
  local what=$1
  shift
  if [ $# -eq 0 ]; then
    log "$what: all present"
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    log "missing Debian packages: $*; run this script as root to install them" >&2
    exit 1
  fi
  log "apt-get update"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  log "installed: $*"
}
