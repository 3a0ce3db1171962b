#!/usr/bin/env bash
# Install Companion as a service on Raspberry Pi OS (bookworm or later), from this checkout:
#     sudo bash hardware/install-pi.sh
# picamera2 comes from Raspberry Pi OS's own package (its libcamera bindings are not on PyPI),
# so the virtual environment sees the system's packages.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
[ "$(id -u)" -eq 0 ] || { echo "run it with sudo: sudo bash $0" >&2; exit 1; }

apt-get update
apt-get install -y python3-picamera2 python3-venv python3-pip fonts-dejavu-core fonts-liberation

id companion >/dev/null 2>&1 || useradd --system --home /var/lib/companion --shell /usr/sbin/nologin companion
usermod -a -G video companion
install -d -o companion -g companion -m 0750 /var/lib/companion

python3 -m venv --system-site-packages /opt/companion/venv
/opt/companion/venv/bin/pip install --upgrade pip
/opt/companion/venv/bin/pip install "$here"

[ -f /etc/default/companion ] || cat > /etc/default/companion <<'CONF'
# which game is on the table and which camera watches it (see `companion serve --help`)
COMPANION_GAME=amoeba
COMPANION_SOURCE=picamera2
CONF

install -m 0644 "$here/hardware/companion.service" /etc/systemd/system/companion.service
systemctl daemon-reload
systemctl enable companion.service

cat <<NEXT
Installed. Before starting it, calibrate once with the board set up under the camera:
    sudo -u companion /opt/companion/venv/bin/companion calibrate --game amoeba \\
        --source picamera2 --out /var/lib/companion/table.json
then start it and read the PIN it prints:
    sudo systemctl start companion && journalctl -u companion -n 20
NEXT
