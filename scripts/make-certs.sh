#!/usr/bin/env bash
# Makes a certificate authority and certificates it signs, for a cluster's
# mutual TLS (docs/cluster.md, "TLS"): DIR/ca.pem and, for each NAME,
# DIR/NAME.pem and DIR/NAME.key (EC P-256, valid for DAYS days, default
# 365). The CA's key stays in DIR/ca.key: keep it off the cluster's
# machines. An existing CA in DIR is reused, so certificates can be added.
#
#   scripts/make-certs.sh configs/certs worker-0 worker-1 client
set -euo pipefail

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
  -h | --help) usage; exit 0 ;;
esac
if [ $# -lt 2 ]; then
  usage >&2
  exit 2
fi
command -v openssl >/dev/null || { echo "make-certs: needs openssl (scripts/setup.sh installs it)" >&2; exit 1; }
dir=$1
shift
days=${DAYS:-365}
mkdir -p "$dir"
curve=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
if [ ! -f "$dir/ca.pem" ]; then
  openssl req -x509 "${curve[@]}" -days "$days" -subj /CN=actorflow-ca \
    -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
  chmod 600 "$dir/ca.key"
  echo "make-certs: made the CA $dir/ca.pem"
fi
for name in "$@"; do
  openssl req "${curve[@]}" -subj "/CN=$name" -keyout "$dir/$name.key" \
    -out "$dir/$name.csr" 2>/dev/null
  openssl x509 -req -days "$days" -in "$dir/$name.csr" -CA "$dir/ca.pem" \
    -CAkey "$dir/ca.key" -CAcreateserial -out "$dir/$name.pem" 2>/dev/null
  rm -f "$dir/$name.csr"
  chmod 600 "$dir/$name.key"
  echo "make-certs: $dir/$name.pem and $dir/$name.key"
done
