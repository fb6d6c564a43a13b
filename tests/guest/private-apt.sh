# Sourced by the guest scripts: apt_opts, a private apt configuration in CACHE/apt that reads Debian's
# archive for amd64 and arm64 (bullseye to trixie) and leaves the machine's own apt sources and state
# alone. Needs $cache; $apt_name and $apt_sources, when set, name another folder and its sources
# (one suite, so that apt resolves within it). Updates the lists at most once a day.
apt_dir="$cache/${apt_name:-apt}"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
if [ -n "${apt_sources:-}" ]; then
        printf '%s\n' "$apt_sources" > "$apt_dir/sources.list"
else
        cat > "$apt_dir/sources.list" <<SOURCES
deb [arch=amd64,arm64] http://deb.debian.org/debian bullseye main
deb [arch=amd64,arm64] http://deb.debian.org/debian-security bullseye-security main
deb [arch=amd64,arm64] http://deb.debian.org/debian bookworm main
deb [arch=amd64,arm64] http://deb.debian.org/debian-security bookworm-security main
deb [arch=amd64,arm64] http://deb.debian.org/debian bookworm-backports main
deb [arch=amd64,arm64] http://deb.debian.org/debian trixie main
SOURCES
fi
apt_opts="-o Dir::Etc::SourceList=$apt_dir/sources.list -o Dir::Etc::SourceParts=/dev/null
 -o Dir::State::Lists=$apt_dir/lists -o Dir::Cache=$apt_dir -o Dir::Cache::Archives=$apt_dir/archives
 -o Dir::State::status=/dev/null -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
 -o APT::Sandbox::User=root -o Debug::NoLocking=1"
if [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n 1)" ]; then
        # shellcheck disable=SC2086
        apt-get $apt_opts -qq update >&2
fi
