// Package tools only anchors the wrapper module; the binaries are built from its dependencies.
package tools
