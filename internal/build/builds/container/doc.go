// Package container runs build recipes inside containers of a local Docker engine, with
// testcontainers-go: `skewtest --runner container`. It implements builds.Runner.
//
// # Images
//
// Each build runs in the image skewtest/toolchain:<name>, where name is the toolchain its
// versions row names, or the host's Go version (go1.26.8) when no row names one. No
// registry is needed: an image that is not in the engine is built locally, FROM scratch,
// from a static busybox (Debian's busybox-static) and the host's Go toolchain ($(go env
// GOROOT)), when the host's Go version is that name or starts with it plus a dot (go1.26
// is satisfied by go1.26.8). Any other toolchain image must be built by the user under
// that tag (docker build -t skewtest/toolchain:go1.22 ...); it needs sh and the tools its
// recipe runs. The image's ID is part of the cache key.
//
// # A build
//
// The checkout, $SKEWTEST_OUT and the shared GOCACHE are bind-mounted (the engine must see
// the host's file system, as a local engine does); the host's GOMODCACHE is mounted
// read-only. The container has no network: before it starts, `go mod download` runs on
// the host in every directory of the checkout that holds a go.mod (skipping vendor and
// testdata), and the container builds with GOPROXY=off GOFLAGS=-mod=mod GOSUMDB=off
// (the host's download verified the modules) GOTOOLCHAIN=local CGO_ENABLED=0. Each recipe
// step is an exec of `sh -c` in the container, as the host's uid:gid so the files it
// writes stay the user's.
//
// # Lifetimes
//
// The Ryuk reaper image cannot be pulled without a registry, so New disables it
// (TESTCONTAINERS_RYUK_DISABLED=true in the process environment, unless it is set) and
// the runner terminates its own containers: the cleanup is registered before the error
// check, and each container's own command is a sleep that ends soon after the build's
// timeout, so even a killed skewtest leaves no running container for long. Every
// container carries the label skewtest=1 and the path of its key's build lock
// (skewtest.lock); Prune removes the ones whose lock nobody holds.
//
// Process-wide effects, all forced by testcontainers-go: importing it runs its init
// functions (a session id from the process table, the default Docker socket); its
// configuration is read once, so the Ryuk setting above is made in the environment before
// the first provider; and it prints the engine's details through its package-level
// logger whatever logger it is given, so New and Healthy set that logger to discard.
// skewtest adds no init function of its own.
package container
