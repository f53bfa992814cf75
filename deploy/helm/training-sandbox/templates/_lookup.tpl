{{/*
The data of a Secret as it is in the cluster now, as YAML {key: base64}; {}
when there is none (first install) or no cluster (helm template, which does
not look things up). Alone in this file so the chart's tests can put a
recorded Secret in its place and show that generated keys survive an upgrade.
(dict "root" $ "name" "<secret name>")
*/}}
{{- define "ts.clusterSecretData" -}}
{{- $found := lookup "v1" "Secret" .root.Release.Namespace .name -}}
{{- toYaml (($found | default dict).data | default dict) -}}
{{- end -}}
