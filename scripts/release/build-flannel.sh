#!/usr/bin/env bash
# Builds flannel's flanneld and install-conf from the Go module proxy (never GitHub) and prints the
# directory holding them. Cached: a directory whose flanneld already reports the version is kept.
#
#   scripts/release/build-flannel.sh VERSION [OUTDIR]   (VERSION like 0.28.9; default
#                                                       OUTDIR ~/.cache/kubemix/release/flannel-vVERSION)
#
# As flannel's release builds them (v0.28.9: Makefile `dist/flanneld`, lines 64-66, cgo on for amd64
# (lines 35-40) so the udp backend is in, linked statically, the version in pkg/version.Version;
# images/Dockerfile builds cmd/install_conf with cgo off), but from the module's main package.
#
# One dependency is not the release's: flannel's main registers every backend, tencent-vpc among
# them, whose SDK module (github.com/tencentcloud/tencentcloud-sdk-go/tencentcloud/vpc, v1.3.149 in
# flannel's go.mod) the proxy refuses at every version (403 for the zip; RESEARCH.md). A module
# written here takes its place: the few declarations pkg/backend/tencentvpc compiles against, every
# call failing with "not built". So flanneld here has no working tencent-vpc backend and nothing
# else differs; kubemix uses vxlan.
set -euo pipefail

version=${1:?usage: build-flannel.sh VERSION [OUTDIR]}
version=${version#v}
out=$(realpath -m "${2:-${XDG_CACHE_HOME:-$HOME/.cache}/kubemix/release/flannel-v$version}")
# shellcheck source=scripts/release/go-main.sh
source "$(dirname "$0")/go-main.sh"

built() { [ -x "$out/install-conf" ] && prints_line "$out/flanneld" "v$version" --version; }
if built; then
  echo "$out"
  exit 0
fi

tencent_vpc=github.com/tencentcloud/tencentcloud-sdk-go/tencentcloud/vpc
go_build_prepare() {
  mkdir -p tencent-vpc-not-built/v20170312
  printf 'module %s\n\ngo 1.22\n' "$tencent_vpc" >tencent-vpc-not-built/go.mod
  cat >tencent-vpc-not-built/v20170312/client.go <<'GO'
// Package v20170312 takes the place of Tencent Cloud's VPC SDK, which the Go module proxy does not
// serve: only what flannel's tencent-vpc backend compiles against, and every call fails.
package v20170312

import "errors"

var errNotBuilt = errors.New("the tencent-vpc backend is not built into this flanneld (its SDK is not on the Go module proxy)")

type Client struct{}

func NewClientWithSecretId(secretID, secretKey, region string) (*Client, error) {
	return nil, errNotBuilt
}

type Filter struct {
	Name   *string
	Values []*string
}

type Route struct {
	DestinationCidrBlock *string
	GatewayType          *string
	GatewayId            *string
	RouteId              *uint64
	RouteType            *string
	Enabled              *bool
}

type RouteTable struct {
	RouteTableId *string
	RouteSet     []*Route
}

type DescribeRouteTablesRequest struct{ Filters []*Filter }

type DescribeRouteTablesResponse struct {
	Response *struct{ RouteTableSet []*RouteTable }
}

type RoutesRequest struct {
	RouteTableId *string
	Routes       []*Route
}

type RoutesResponse struct{}

func NewDescribeRouteTablesRequest() *DescribeRouteTablesRequest { return &DescribeRouteTablesRequest{} }
func NewDeleteRoutesRequest() *RoutesRequest                     { return &RoutesRequest{} }
func NewCreateRoutesRequest() *RoutesRequest                     { return &RoutesRequest{} }

func (*Client) DescribeRouteTables(*DescribeRouteTablesRequest) (*DescribeRouteTablesResponse, error) {
	return nil, errNotBuilt
}
func (*Client) DeleteRoutes(*RoutesRequest) (*RoutesResponse, error) { return nil, errNotBuilt }
func (*Client) CreateRoutes(*RoutesRequest) (*RoutesResponse, error) { return nil, errNotBuilt }
GO
  "$go" mod edit -replace "$tencent_vpc=./tencent-vpc-not-built"
}

# install-conf needs the same module in place: `go get` of the release loads flannel's main package.
GO_BUILD_CGO=1 GO_BUILD_LDFLAGS="-X github.com/flannel-io/flannel/pkg/version.Version=v$version" \
  go_release_build flanneld "github.com/flannel-io/flannel@v$version" "$out" github.com/flannel-io/flannel
go_release_build install-conf "github.com/flannel-io/flannel@v$version" "$out" github.com/flannel-io/flannel/cmd/install_conf
built || { echo "build-flannel: $out/flanneld does not report v$version" >&2; exit 1; }
echo "$out"
