#!/usr/bin/env bash
# Prints a Java class path that runs Debian's Apache Jena (libapache-jena-java 4.5.0) and makes the overlay it
# needs in $1 (a directory, created if missing).
#
# Why not '/usr/share/java/*': that folder also holds slf4j-log4j12 and log4j-over-slf4j, and with both on the
# path slf4j refuses to start (ExceptionInInitializerError in LogCtl). So the path lists Jena's own jars and
# the packages libapache-jena-java depends on, with slf4j-nop as the one logging binding.
#
# Why an overlay: Debian's jena-core.jar moves Jena's copy of Xerces to the package `xerces.*` but leaves its
# message bundles under org/apache/jena/ext/xerces/. The datatype factory loads `xerces.impl.xpath.regex.message`
# while it builds the XSD types, does not find it, and every Jena command dies at start-up in
# SchemaDVFactory.<clinit> ("internal error" in XSSimpleTypeDecl.applyFacets1). Copying those bundles, unchanged,
# out of the same jar to the names the classes ask for fixes it without touching the installed jar.
set -euo pipefail
overlay="$1"
j=/usr/share/java
[ -f "$j/jena-core.jar" ] || { echo "jena: libapache-jena-java is not installed (apt-get install -y libapache-jena-java)" >&2; exit 1; }
if [ ! -f "$overlay/xerces/impl/xpath/regex/message.properties" ]; then
  tmp="$(mktemp -d)"
  (cd "$tmp" && unzip -q -o "$j/jena-core.jar" 'org/apache/jena/ext/xerces/impl/msg/*.properties' \
    'org/apache/jena/ext/xerces/impl/xpath/regex/*.properties')
  mkdir -p "$overlay/xerces/impl/msg" "$overlay/xerces/impl/xpath/regex"
  cp "$tmp"/org/apache/jena/ext/xerces/impl/msg/*.properties "$overlay/xerces/impl/msg/"
  cp "$tmp"/org/apache/jena/ext/xerces/impl/xpath/regex/*.properties "$overlay/xerces/impl/xpath/regex/"
  rm -rf "$tmp"
fi
cp="$overlay"
for f in jena-arq jena-base jena-cmds jena-core jena-dboe-base jena-dboe-index jena-dboe-storage \
  jena-dboe-trans-data jena-dboe-transaction jena-iri jena-rdfconnection jena-shacl jena-shex jena-tdb jena-tdb2 \
  commons-cli commons-codec commons-compress commons-csv commons-io commons-lang3 dexx.collection gson guava \
  httpclient httpclient-cache httpcore jackson-annotations jackson-core jackson-databind jakarta.json-api \
  jsonld-java protobuf thrift titanium-json-ld slf4j-api slf4j-nop jcl-over-slf4j; do
  [ -f "$j/$f.jar" ] || { echo "jena: $j/$f.jar is missing" >&2; exit 1; }
  cp="$cp:$j/$f.jar"
done
echo "$cp"
