#!/usr/bin/env bash
# Makes a development CA and certificates for rmq's mutual TLS (--tls-dir).
#
#   apps/rmq-node/make-dev-certs.sh OUT [NAME...]   (default: node client)
#
# OUT/ca.pem, OUT/ca.key   the cluster's CA (reused if it exists already, so
#                          more names can be added later)
# OUT/NAME/ca.pem          a copy of the CA certificate: whom NAME trusts
# OUT/NAME/cert.pem        NAME's certificate, signed by the CA
# OUT/NAME/key.pem         NAME's private key (mode 600)
#
# Then: rmq-node --tls-dir=OUT/node, rmq-admin --tls-dir OUT/client ...
# For development only: the CA key sits unencrypted next to the rest. In
# production use your own CA and keep its key offline (docs/security.md).
set -euo pipefail
if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
if ! command -v openssl >/dev/null; then
  echo "$0: needs the openssl CLI" >&2
  exit 1
fi
out=$1
shift
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(node client)
days=365
umask 077
mkdir -p "$out"
# EC P-256: small keys, fast handshakes; CAF's cipher list takes ECDSA.
newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
             -out "$1" 2>/dev/null; }
if [ ! -f "$out/ca.pem" ]; then
  newkey "$out/ca.key"
  openssl req -x509 -new -key "$out/ca.key" -sha256 -days "$days" \
    -subj "/O=rmq development/CN=rmq dev CA $(date +%s)-$$" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$out/ca.pem"
fi
for name in "${names[@]}"; do
  case $name in
    */*|.*|"") echo "$0: bad name '$name'" >&2; exit 2 ;;
  esac
  dir=$out/$name
  mkdir -p "$dir"
  newkey "$dir/key.pem"
  openssl req -new -key "$dir/key.pem" -subj "/O=rmq development/CN=$name" \
    -out "$dir/req.csr"
  # Both usages: a node is a server to its clients and a client of others.
  printf '%s\n' "basicConstraints=CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyAgreement" \
    "extendedKeyUsage=serverAuth,clientAuth" \
    "subjectAltName=DNS:localhost,IP:127.0.0.1" > "$dir/ext.cnf"
  openssl x509 -req -in "$dir/req.csr" -CA "$out/ca.pem" -CAkey "$out/ca.key" \
    -CAcreateserial -days "$days" -sha256 -extfile "$dir/ext.cnf" \
    -out "$dir/cert.pem" 2>/dev/null
  rm -f "$dir/req.csr" "$dir/ext.cnf"
  cp "$out/ca.pem" "$dir/ca.pem"
  chmod 644 "$dir/cert.pem" "$dir/ca.pem"
  echo "$dir: cert.pem key.pem ca.pem (CN=$name)"
done
