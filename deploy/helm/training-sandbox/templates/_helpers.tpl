{{/*
Who calls whom, which keys each process reads, and which stores it uses. This
is the system's shape, not configuration: the NetworkPolicies, the
*_GRPC_ADDR variables and the secret references are all derived from it.
*/}}
{{- define "ts.topology" -}}
gateway:
  protocol: http
  peers: [identity, oauth, data, playground]
  secretKeys: []
  # Redis: the fair-share counts (rate limits, slow requests), shared by every gateway replica.
  stores: [redis]
identity:
  protocol: grpc
  peers: []
  secretKeys: [CREDENTIAL_ENCRYPTION_KEY, SESSION_SIGNING_KEY]
  # Redis: the sign-in throttle's counts, shared by every identity replica.
  stores: [mongodb, redis]
oauth:
  protocol: grpc
  peers: [identity]
  secretKeys: [JWT_SIGNING_KEY]
  stores: [redis]
data:
  protocol: grpc
  peers: []
  secretKeys: [PAGE_TOKEN_KEY]
  stores: []
playground:
  protocol: grpc
  peers: []
  secretKeys: []
  stores: []
{{- end -}}

{{/* The variable that carries each store's URL. */}}
{{- define "ts.storeUrlKeys" -}}
mongodb: MONGO_URL
redis: REDIS_URL
{{- end -}}

{{- define "ts.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Leaves room for "-playground" within the 63-character name limit. */}}
{{- define "ts.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The name of one service's objects: (dict "root" $ "name" "identity") */}}
{{- define "ts.componentName" -}}
{{- printf "%s-%s" (include "ts.fullname" .root) .name -}}
{{- end -}}

{{- define "ts.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ts.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ts.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ts.labels" -}}
helm.sh/chart: {{ include "ts.chart" . }}
{{ include "ts.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: training-sandbox
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* (dict "root" $ "name" "identity") */}}
{{- define "ts.componentSelectorLabels" -}}
{{ include "ts.selectorLabels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "ts.componentLabels" -}}
{{ include "ts.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/*
One service's settings: the defaults block with services.<name> merged over it
(maps merge key by key; lists and scalars replace).
*/}}
{{- define "ts.settings" -}}
{{- $override := index .root.Values.services .name | default dict -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.defaults) (deepCopy $override)) -}}
{{- end -}}

{{- define "ts.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "ts.fullname" .)) -}}
{{- end -}}

{{/*
The in-cluster stores' Secret: one you manage (stores.existingSecret, holding
mongodb-password and redis-password), else the chart's own, which also holds
the URLs and Redis's configuration.
*/}}
{{- define "ts.storesSecretName" -}}
{{- .Values.stores.existingSecret | default (printf "%s-stores" (include "ts.fullname" .)) -}}
{{- end -}}

{{/* "true" when the chart renders (and generates) the stores Secret itself. */}}
{{- define "ts.chartStoresSecret" -}}
{{- and (eq .Values.stores.mode "inCluster") (not .Values.stores.existingSecret) -}}
{{- end -}}

{{- define "ts.inClusterStores" -}}
{{- eq .Values.stores.mode "inCluster" -}}
{{- end -}}

{{/*
What one process reads from Secrets: (dict "root" $ "name" "identity") gives
YAML {refs: {VAR: {secret, key[, optional]}}, composed: {VAR: value}}.
- refs: variables set by secretKeyRef. Keys come from the keys Secret (the
  chart's own or secrets.existingSecret). Store URLs come from the keys Secret
  in external mode, from the chart's stores Secret in inCluster mode, and not
  at all in memory mode.
- composed: with inCluster and stores.existingSecret, the chart cannot write
  the URLs into a Secret (it never sees the passwords), so each URL is built in
  the pod from its password variable ($(MONGODB_PASSWORD), a ref above) by
  Kubernetes' dependent-variable expansion; composed variables must therefore
  come after the refs in the container's env.
*/}}
{{- define "ts.secretEnv" -}}
{{- $root := .root -}}
{{- $topo := index (include "ts.topology" $root | fromYaml) .name -}}
{{- $urlKeys := include "ts.storeUrlKeys" $root | fromYaml -}}
{{- $keysSecret := include "ts.secretName" $root -}}
{{- $refs := dict -}}
{{- $composed := dict -}}
{{- range $key := $topo.secretKeys -}}
{{- $_ := set $refs $key (dict "secret" $keysSecret "key" $key) -}}
{{- end -}}
{{- /* Single sign-on: the gateway's cookie key, and a confidential client's secret (optional in a Secret you manage). */ -}}
{{- if and (eq .name "gateway") $root.Values.sso.clientId -}}
{{- $_ := set $refs "SSO_COOKIE_KEY" (dict "secret" $keysSecret "key" "SSO_COOKIE_KEY") -}}
{{- if or $root.Values.secrets.existingSecret $root.Values.secrets.values.SSO_CLIENT_SECRET -}}
{{- $_ := set $refs "SSO_CLIENT_SECRET" (dict "secret" $keysSecret "key" "SSO_CLIENT_SECRET" "optional" true) -}}
{{- end -}}
{{- end -}}
{{- range $store := $topo.stores -}}
{{- $urlKey := index $urlKeys $store -}}
{{- if eq $root.Values.stores.mode "external" -}}
{{- $_ := set $refs $urlKey (dict "secret" $keysSecret "key" $urlKey) -}}
{{- else if eq (include "ts.chartStoresSecret" $root) "true" -}}
{{- $_ := set $refs $urlKey (dict "secret" (include "ts.storesSecretName" $root) "key" $urlKey) -}}
{{- else if eq $root.Values.stores.mode "inCluster" -}}
{{- $passwordVar := printf "%s_PASSWORD" (upper $store) -}}
{{- $_ := set $refs $passwordVar (dict "secret" (include "ts.storesSecretName" $root) "key" (printf "%s-password" $store)) -}}
{{- $_ := set $composed $urlKey (include "ts.storeUrl" (dict "root" $root "store" $store "password" (printf "$(%s)" $passwordVar))) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "refs" $refs "composed" $composed) -}}
{{- end -}}

{{/*
The data of one Secret a pod reads, as JSON {key: base64}, for the pods'
checksum annotations: (dict "root" $ "name" "<secret name>"). The chart's own
Secrets as this render writes them; a Secret you manage as the cluster holds
it now (lookup: {} under `helm template`, Argo CD and dry runs, so those
renders stay the same every time).
*/}}
{{- define "ts.secretDataOf" -}}
{{- $root := .root -}}
{{- if and (not $root.Values.secrets.existingSecret) (eq .name (include "ts.secretName" $root)) -}}
{{- include "ts.keysSecretData" $root -}}
{{- else if and (eq (include "ts.chartStoresSecret" $root) "true") (eq .name (include "ts.storesSecretName" $root)) -}}
{{- include "ts.storesSecretData" $root -}}
{{- else -}}
{{- include "ts.clusterSecretData" . | fromYaml | toJson -}}
{{- end -}}
{{- end -}}

{{/* One in-cluster store's URL as the services use it: (dict "root" $ "store" "mongodb" "password" "...") */}}
{{- define "ts.storeUrl" -}}
{{- $host := include "ts.componentName" (dict "root" .root "name" .store) -}}
{{- $port := int (index .root.Values.stores .store).port -}}
{{- if eq .store "mongodb" -}}
{{- printf "mongodb://sandbox:%s@%s:%d/training-sandbox?authSource=admin" .password $host $port -}}
{{- else -}}
{{- printf "redis://:%s@%s:%d" .password $host $port -}}
{{- end -}}
{{- end -}}

{{/*
Redis's configuration without its password, one directive a line. The chart's
stores Secret prepends `requirepass` to it; with stores.existingSecret the
container feeds it on stdin with the password from the environment.
*/}}
{{- define "ts.redisConfig" -}}
{{- $r := .Values.stores.redis -}}
{{- list
  (printf "port %d" (int $r.port))
  "bind * -::*"
  "dir /data"
  "appendonly yes"
  (printf "maxmemory %s" $r.maxmemory)
  "maxmemory-policy noeviction"
  "" | join "\n" -}}
{{- end -}}

{{/*
The data of the keys Secret the chart renders, as JSON {KEY: base64}, worked
out once per render (kept on the root context): a key given in
secrets.values wins; else the value the Secret already holds in the cluster
(so generated keys survive upgrades); else a new random one. Computed once
so the Secret and the pods' checksum annotation see the same keys.
*/}}
{{- define "ts.keysSecretData" -}}
{{- if not (hasKey . "tsKeysSecretData") -}}
{{- $existing := include "ts.clusterSecretData" (dict "root" . "name" (include "ts.secretName" .)) | fromYaml -}}
{{- $data := dict -}}
{{- $generated := list "CREDENTIAL_ENCRYPTION_KEY" "SESSION_SIGNING_KEY" "PAGE_TOKEN_KEY" "JWT_SIGNING_KEY" -}}
{{- if .Values.sso.clientId -}}
{{- $generated = append $generated "SSO_COOKIE_KEY" -}}
{{- end -}}
{{- range $key := $generated -}}
{{- $given := index $.Values.secrets.values $key -}}
{{- if $given -}}
{{- $_ := set $data $key ($given | b64enc) -}}
{{- else if index $existing $key -}}
{{- $_ := set $data $key (index $existing $key) -}}
{{- else if eq $key "JWT_SIGNING_KEY" -}}
{{- $_ := set $data $key (genPrivateKey "rsa" | b64enc) -}}
{{- else -}}
{{- $_ := set $data $key (randBytes 32 | b64enc) -}}
{{- end -}}
{{- end -}}
{{- with .Values.secrets.values.SSO_CLIENT_SECRET -}}
{{- $_ := set $data "SSO_CLIENT_SECRET" (. | b64enc) -}}
{{- end -}}
{{- if eq .Values.stores.mode "external" -}}
{{- range $key := list "MONGO_URL" "REDIS_URL" -}}
{{- $_ := set $data $key (index $.Values.secrets.values $key | b64enc) -}}
{{- end -}}
{{- end -}}
{{- $_ := set . "tsKeysSecretData" $data -}}
{{- end -}}
{{- toJson .tsKeysSecretData -}}
{{- end -}}

{{/*
The in-cluster stores' Secret data, as JSON {key: base64}, once per render:
passwords kept from the cluster or generated, the URLs the services use, and
Redis's configuration (it carries the password, so it is secret too).
*/}}
{{- define "ts.storesSecretData" -}}
{{- if not (hasKey . "tsStoresSecretData") -}}
{{- $existing := include "ts.clusterSecretData" (dict "root" . "name" (include "ts.storesSecretName" .)) | fromYaml -}}
{{- $passwords := dict -}}
{{- range $key := list "mongodb-password" "redis-password" -}}
{{- $_ := set $passwords $key (index $existing $key | default "" | b64dec | default (randAlphaNum 32)) -}}
{{- end -}}
{{- $mongoPassword := index $passwords "mongodb-password" -}}
{{- $redisPassword := index $passwords "redis-password" -}}
{{- $data := dict
  "mongodb-password" ($mongoPassword | b64enc)
  "redis-password" ($redisPassword | b64enc)
  "MONGO_URL" (include "ts.storeUrl" (dict "root" . "store" "mongodb" "password" $mongoPassword) | b64enc)
  "REDIS_URL" (include "ts.storeUrl" (dict "root" . "store" "redis" "password" $redisPassword) | b64enc)
  "redis.conf" (printf "requirepass %s\n%s" $redisPassword (include "ts.redisConfig" .) | b64enc) -}}
{{- $_ := set . "tsStoresSecretData" $data -}}
{{- end -}}
{{- toJson .tsStoresSecretData -}}
{{- end -}}

{{/*
Every ServiceAccount setting by component, as YAML {component: {create, name,
annotations}}: each service's (defaults.serviceAccount merged with its own)
and, with inCluster, each store's. One list, so the accounts rendered, the
names pods use and the duplicate check cannot disagree.
*/}}
{{- define "ts.serviceAccounts" -}}
{{- $accounts := dict -}}
{{- range $name, $_ := .Values.services -}}
{{- $s := include "ts.settings" (dict "root" $ "name" $name) | fromYaml -}}
{{- $_ := set $accounts $name $s.serviceAccount -}}
{{- end -}}
{{- if eq (include "ts.inClusterStores" .) "true" -}}
{{- range $store := list "mongodb" "redis" -}}
{{- $_ := set $accounts $store (index $.Values.stores $store).serviceAccount -}}
{{- end -}}
{{- end -}}
{{- toYaml $accounts -}}
{{- end -}}

{{/*
The ServiceAccount one component's pods run as: (dict "root" $ "name"
"identity"). Created: its name or <fullname>-<component>; not created: the
named existing one, else the namespace's "default".
*/}}
{{- define "ts.serviceAccountName" -}}
{{- $account := index (include "ts.serviceAccounts" .root | fromYaml) .name -}}
{{- if $account.create -}}
{{- $account.name | default (include "ts.componentName" .) -}}
{{- else -}}
{{- $account.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* An image reference: (dict "image" {repository, tag, digest} "defaultTag" "1.0.0"); a digest wins over the tag. */}}
{{- define "ts.imageRef" -}}
{{- if .image.digest -}}
{{- printf "%s@%s" .image.repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository (.image.tag | default .defaultTag) -}}
{{- end -}}
{{- end -}}

{{/*
The sandbox's own image. Nobody publishes it: it is built from this
repository and pushed to the operator's registry, so no default repository
could work, and an install without one fails here, saying what to do, rather
than with pods stuck in ImagePullBackOff.
*/}}
{{- define "ts.image" -}}
{{- $_ := required "image.repository is required: build the image from this repository (npm run image), push it to your registry, and set image.repository (and image.tag or image.digest); see docs/deployment.md, \"The image\"" .Values.image.repository -}}
{{- include "ts.imageRef" (dict "image" .Values.image "defaultTag" .Chart.AppVersion) -}}
{{- end -}}

{{/*
Where a pod may be scheduled, as pod-spec fields: priority, node selection,
tolerations, affinity and spread constraints: (dict "root" $ "name"
"identity" "s" <settings>). A spread constraint without a labelSelector gets
the component's own, so one list in defaults spreads each service by itself.
*/}}
{{- define "ts.podScheduling" -}}
{{- $ctx := dict "root" .root "name" .name -}}
{{- with .s.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .s.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .s.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .s.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- $constraints := list }}
{{- range $c := .s.topologySpreadConstraints }}
{{- $c = deepCopy $c }}
{{- if not (hasKey $c "labelSelector") }}
{{- $_ := set $c "labelSelector" (dict "matchLabels" (include "ts.componentSelectorLabels" $ctx | fromYaml)) }}
{{- end }}
{{- $constraints = append $constraints $c }}
{{- end }}
{{- with $constraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* A gRPC service's port, by name: (dict "root" $ "name" "identity") */}}
{{- define "ts.grpcPort" -}}
{{- $settings := include "ts.settings" . | fromYaml -}}
{{- $settings.port | int -}}
{{- end -}}

{{/* The gRPC target its callers use: every pod of a headless Service, round-robin. */}}
{{- define "ts.grpcTarget" -}}
{{- printf "dns:///%s:%d" (include "ts.componentName" .) (include "ts.grpcPort" . | int) -}}
{{- end -}}

{{/* A number as the processes parse it: whole numbers as integers (YAML's 1000000 would otherwise print as 1e+06). */}}
{{- define "ts.number" -}}
{{- if eq (float64 .) (float64 (int64 .)) -}}{{ int64 . }}{{- else -}}{{ . }}{{- end -}}
{{- end -}}

{{- define "ts.trustProxy" -}}
{{- or .Values.ingress.enabled .Values.gateway.trustProxy -}}
{{- end -}}

{{/* Fails the render on settings that would break at run time. */}}
{{- define "ts.validate" -}}
{{- if and .Values.secrets.existingSecret (gt (len (compact (values .Values.secrets.values))) 0) -}}
{{- fail "secrets: set either secrets.existingSecret or secrets.values, not both" -}}
{{- end -}}
{{- range $name, $_ := .Values.services -}}
{{- $s := include "ts.settings" (dict "root" $ "name" $name) | fromYaml -}}
{{- if le (int $s.terminationGracePeriodSeconds) (add (int $s.shutdownGraceSeconds) (int $s.preStopSleepSeconds)) -}}
{{- fail (printf "services.%s: terminationGracePeriodSeconds (%d) must exceed preStopSleepSeconds (%d) plus shutdownGraceSeconds (%d)" $name (int $s.terminationGracePeriodSeconds) (int $s.preStopSleepSeconds) (int $s.shutdownGraceSeconds)) -}}
{{- end -}}
{{- if and $s.hpa.enabled (gt (int $s.hpa.minReplicas) (int $s.hpa.maxReplicas)) -}}
{{- fail (printf "services.%s.hpa: minReplicas exceeds maxReplicas" $name) -}}
{{- end -}}
{{- end -}}
{{- /* Two components creating one ServiceAccount name would render the same object twice. */ -}}
{{- $created := dict -}}
{{- range $component, $account := include "ts.serviceAccounts" . | fromYaml -}}
{{- if $account.create -}}
{{- $name := include "ts.serviceAccountName" (dict "root" $ "name" $component) -}}
{{- if hasKey $created $name -}}
{{- fail (printf "serviceAccount: %s and %s would both create the ServiceAccount %s; give them different names, or create it once and set create: false with that name on the other" (index $created $name) $component $name) -}}
{{- end -}}
{{- $_ := set $created $name $component -}}
{{- end -}}
{{- end -}}
{{- $t := .Values.grpcTls -}}
{{- if and (ne (include "ts.grpcTlsMode" .) "off") $t.existingSecrets -}}
{{- if $t.certManager.issuerRef.name -}}
{{- fail "grpcTls: set either existingSecrets or certManager.issuerRef, not both" -}}
{{- end -}}
{{- $missing := list -}}
{{- range $name := include "ts.grpcTlsNames" . | fromJsonArray -}}
{{- if not (index $t.existingSecrets $name) -}}
{{- $missing = append $missing $name -}}
{{- end -}}
{{- end -}}
{{- if $missing -}}
{{- fail (printf "grpcTls.existingSecrets: name a TLS Secret for every process (gateway, identity, oauth, data, playground) and, with adminCli.enabled, for the CLI (cli); missing: %s" (join ", " $missing)) -}}
{{- end -}}
{{- end -}}
{{- $topology := include "ts.topology" . | fromYaml -}}
{{- if hasKey (.Values.services.gateway | default dict) "healthPort" -}}
{{- fail "services.gateway.healthPort: the gateway speaks HTTP and is probed there; only the gRPC services have a health port" -}}
{{- end -}}
{{- range $name, $_ := .Values.services -}}
{{- if eq (index $topology $name).protocol "grpc" -}}
{{- $s := include "ts.settings" (dict "root" $ "name" $name) | fromYaml -}}
{{- if not $s.healthPort -}}
{{- fail (printf "services.%s.healthPort is required: the port its Kubernetes probes ask (plaintext grpc.health.v1 alone)" $name) -}}
{{- end -}}
{{- if or (eq (int $s.healthPort) (int $s.port)) (and $.Values.metrics.enabled (eq (int $s.healthPort) (int $.Values.metrics.port))) -}}
{{- fail (printf "services.%s.healthPort (%d) must differ from its gRPC port and the metrics port" $name (int $s.healthPort)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $body := .Values.ingress.maxBodySize -}}
{{- if and (hasSuffix "m" (lower $body)) (lt (int (trimSuffix "m" (lower $body))) 26) -}}
{{- fail (printf "ingress.maxBodySize (%s) must be at least 26m: uploads are up to 25 MiB plus their multipart framing" $body) -}}
{{- end -}}
{{- end -}}

{{/*
What the Ingress controller named by ingress.controller needs for the
sandbox: a read timeout above the 60 s /playground/timeout, a body limit
above the 25 MiB uploads, and request buffering off (uploads stream to the
playground service as they arrive) where the controller has the switch.
*/}}
{{- define "ts.ingressControllerAnnotations" -}}
{{- $i := .Values.ingress -}}
{{- $timeout := int $i.timeoutSeconds -}}
{{- if eq $i.controller "ingress-nginx" -}}
nginx.ingress.kubernetes.io/proxy-read-timeout: {{ $timeout | quote }}
nginx.ingress.kubernetes.io/proxy-send-timeout: {{ $timeout | quote }}
nginx.ingress.kubernetes.io/proxy-body-size: {{ $i.maxBodySize | quote }}
nginx.ingress.kubernetes.io/proxy-request-buffering: "off"
nginx.ingress.kubernetes.io/proxy-buffering: "off"
{{- else if eq $i.controller "nginx" -}}
nginx.org/proxy-read-timeout: {{ printf "%ds" $timeout | quote }}
nginx.org/proxy-send-timeout: {{ printf "%ds" $timeout | quote }}
nginx.org/client-max-body-size: {{ $i.maxBodySize | quote }}
nginx.org/proxy-buffering: "false"
{{- else if eq $i.controller "haproxy" -}}
haproxy.org/timeout-server: {{ printf "%ds" $timeout | quote }}
haproxy.org/timeout-client: {{ printf "%ds" $timeout | quote }}
{{- else if eq $i.controller "alb" -}}
alb.ingress.kubernetes.io/load-balancer-attributes: {{ printf "idle_timeout.timeout_seconds=%d" $timeout | quote }}
{{- end -}}
{{- end -}}

{{/*
Mutual TLS between the processes (docs/security.md, "Between services").
Where their certificates come from: "off" (grpcTls.mode off: none),
"existing" (grpcTls.existingSecrets: Secrets you manage), "certManager"
(grpcTls.certManager.issuerRef: a cert-manager Certificate per process), or
"generated" (the chart makes a CA and one certificate per process).
*/}}
{{- define "ts.grpcTlsSource" -}}
{{- $t := .Values.grpcTls -}}
{{- if eq (include "ts.grpcTlsMode" .) "off" -}}off
{{- else if $t.existingSecrets -}}existing
{{- else if $t.certManager.issuerRef.name -}}certManager
{{- else -}}generated
{{- end -}}
{{- end -}}

{{/*
grpcTls.mode as GRPC_TLS spells it: on, off, accept-tls or send-tls. YAML
1.1 reads an unquoted on or off as true or false; those mean on and off.
*/}}
{{- define "ts.grpcTlsMode" -}}
{{- $mode := .Values.grpcTls.mode -}}
{{- if kindIs "bool" $mode -}}{{ ternary "on" "off" $mode }}{{- else -}}{{ $mode }}{{- end -}}
{{- end -}}

{{/*
Whether the operators' CLI gets its container beside each gateway, with a
certificate of its own (`cli`): identity knows the CLI by it and takes the
gateway's for no operator (docs/security.md, "Operator actions"). Not with
mutual TLS off: without certificates identity cannot tell the CLI apart, and
refuses it.
*/}}
{{- define "ts.adminCli" -}}
{{- if and .Values.adminCli.enabled (ne (include "ts.grpcTlsMode" .) "off") -}}true{{- end -}}
{{- end -}}

{{/* Every identity the chart gives a certificate: each process, and the CLI when it has its container. JSON list. */}}
{{- define "ts.grpcTlsNames" -}}
{{- $names := keys .Values.services | sortAlpha -}}
{{- if include "ts.adminCli" . -}}{{- $names = append $names "cli" -}}{{- end -}}
{{- toJson $names -}}
{{- end -}}

{{/* Where each process finds its ca.crt, tls.crt and tls.key (GRPC_TLS_DIR). */}}
{{- define "ts.grpcTlsDir" -}}/run/sandbox-tls{{- end -}}

{{/*
The TLS Secret one process mounts: (dict "root" $ "name" "identity"). The
one you named in grpcTls.existingSecrets, else <fullname>-<name>-grpc-tls
(rendered by the chart, or written there by cert-manager).
*/}}
{{- define "ts.grpcTlsSecretName" -}}
{{- index .root.Values.grpcTls.existingSecrets .name | default (printf "%s-grpc-tls" (include "ts.componentName" .)) -}}
{{- end -}}

{{/* The Secret holding the chart's own CA (certificate and key), never mounted by a pod. */}}
{{- define "ts.grpcCaSecretName" -}}
{{- printf "%s-grpc-ca" (include "ts.fullname" .) -}}
{{- end -}}

{{/*
The certificates the chart generates, as JSON {<secret name>: {key: base64}}:
its CA's Secret (tls.crt, tls.key) and one kubernetes.io/tls Secret per
process (ca.crt, tls.crt, tls.key; common name the process's name, which is
its identity: helm cannot write the spiffe:// URI SAN cert-manager writes).
Worked out once per render, kept on the root context, so the Secrets and the
pods' checksum annotations see the same certificates. Kept across upgrades as
the keys are: the CA as the cluster holds it (else a new one, ECDSA P-256);
each process's certificate as the cluster holds it if the kept CA signed it
(its ca.crt is that CA), else a new one from that CA. Delete a Secret and
upgrade to have it made again.
*/}}
{{- define "ts.grpcTlsGenerated" -}}
{{- if not (hasKey . "tsGrpcTlsGenerated") -}}
{{- $root := . -}}
{{- $days := int .Values.grpcTls.generated.validityDays -}}
{{- $caSecret := include "ts.grpcCaSecretName" . -}}
{{- $keptCa := include "ts.clusterSecretData" (dict "root" . "name" $caSecret) | fromYaml -}}
{{- $ca := dict -}}
{{- if and (index $keptCa "tls.crt") (index $keptCa "tls.key") -}}
{{- $ca = buildCustomCert (index $keptCa "tls.crt") (index $keptCa "tls.key") -}}
{{- else -}}
{{- $ca = genCAWithKey "Training Sandbox internal CA" $days (genPrivateKey "ecdsa") -}}
{{- end -}}
{{- $caCrt := $ca.Cert | b64enc -}}
{{- $data := dict $caSecret (dict "tls.crt" $caCrt "tls.key" ($ca.Key | b64enc)) -}}
{{- range $name := include "ts.grpcTlsNames" . | fromJsonArray -}}
{{- $ctx := dict "root" $root "name" $name -}}
{{- $secret := include "ts.grpcTlsSecretName" $ctx -}}
{{- $kept := include "ts.clusterSecretData" (dict "root" $root "name" $secret) | fromYaml -}}
{{- if and (eq (index $kept "ca.crt" | default "") $caCrt) (index $kept "tls.crt") (index $kept "tls.key") -}}
{{- $_ := set $data $secret (dict "ca.crt" $caCrt "tls.crt" (index $kept "tls.crt") "tls.key" (index $kept "tls.key")) -}}
{{- else -}}
{{- $host := include "ts.componentName" $ctx -}}
{{- /* The CLI only calls: no host name to answer by. */ -}}
{{- $dns := ternary (list) (list $host (printf "%s.%s.svc" $host $root.Release.Namespace)) (eq $name "cli") -}}
{{- $leaf := genSignedCertWithKey $name nil $dns $days $ca (genPrivateKey "ecdsa") -}}
{{- $_ := set $data $secret (dict "ca.crt" $caCrt "tls.crt" ($leaf.Cert | b64enc) "tls.key" ($leaf.Key | b64enc)) -}}
{{- end -}}
{{- end -}}
{{- $_ := set . "tsGrpcTlsGenerated" $data -}}
{{- end -}}
{{- toJson .tsGrpcTlsGenerated -}}
{{- end -}}

{{/*
What one process's TLS Secret holds, as JSON {key: base64}, for its pods'
checksum annotation: (dict "root" $ "name" "identity"). The chart's own as
this render writes it; a Secret you manage as the cluster holds it now ({}
under helm template); {} with cert-manager, which renews certificates in
place (the processes re-read them, GRPC_TLS_REFRESH_MS), so a renewal rolls
nothing.
*/}}
{{- define "ts.grpcTlsChecksumData" -}}
{{- $source := include "ts.grpcTlsSource" .root -}}
{{- $secret := include "ts.grpcTlsSecretName" . -}}
{{- if eq $source "generated" -}}
{{- index (include "ts.grpcTlsGenerated" .root | fromJson) $secret | toJson -}}
{{- else if eq $source "existing" -}}
{{- include "ts.clusterSecretData" (dict "root" .root "name" $secret) | fromYaml | toJson -}}
{{- else -}}
{{- dict | toJson -}}
{{- end -}}
{{- end -}}
