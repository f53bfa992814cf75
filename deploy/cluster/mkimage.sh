#!/usr/bin/env bash
# mkimage.sh DIR NAME:TAG OUT.tar ENTRYPOINT... : makes a one-layer OCI image
# archive of DIR (owned by root, as it is) that `ctr images import` names
# NAME:TAG. No registry serves the pause image or CoreDNS here, so the node's
# pause (catatonit) and CoreDNS images are made from local binaries this way.
set -euo pipefail
dir=$1 ref=$2 out=$3; shift 3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/blobs/sha256"
sha() { sha256sum "$1" | cut -d' ' -f1; }
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$dir" -cf "$work/layer.tar" .
diffid=$(sha "$work/layer.tar")
gzip -n -c "$work/layer.tar" >"$work/layer.tgz"
layer=$(sha "$work/layer.tgz"); lsize=$(stat -c %s "$work/layer.tgz")
mv "$work/layer.tgz" "$work/blobs/sha256/$layer"
ep=$(printf '"%s",' "$@"); ep="[${ep%,}]"
printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"User":"65532:65532","WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created_by":"deploy/cluster/mkimage.sh"}]}' \
  "$ep" "$diffid" >"$work/config.json"
cfg=$(sha "$work/config.json"); csize=$(stat -c %s "$work/config.json")
mv "$work/config.json" "$work/blobs/sha256/$cfg"
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%s}]}' \
  "$cfg" "$csize" "$layer" "$lsize" >"$work/manifest.json"
man=$(sha "$work/manifest.json"); msize=$(stat -c %s "$work/manifest.json")
mv "$work/manifest.json" "$work/blobs/sha256/$man"
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
  "$man" "$msize" "$ref" "${ref##*:}" >"$work/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$work/oci-layout"
rm "$work/layer.tar"
tar -C "$work" -cf "$out" oci-layout index.json blobs
