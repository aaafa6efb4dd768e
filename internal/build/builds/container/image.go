package container

import (
	"archive/tar"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/testcontainers/testcontainers-go"
)

// ImageRepo is the repository of toolchain images: skewtest/toolchain:<name>.
const ImageRepo = "skewtest/toolchain"

var (
	// ErrNoImage means a toolchain image is neither in the engine nor buildable here.
	ErrNoImage = errors.New("no toolchain image")
	// ErrNoBusybox means there is no static busybox to build a toolchain image with.
	ErrNoBusybox = errors.New("no statically linked busybox to give the image a shell: install Debian's busybox-static (apt-get install busybox-static)")
)

// dockerfile lays out the image: busybox's applets as /bin, a world-writable /tmp as
// HOME, and the host's GOROOT as /usr/local/go.
const dockerfile = `FROM scratch
COPY busybox /bin/busybox
RUN ["/bin/busybox", "--install", "-s", "/bin"]
RUN ["/bin/busybox", "mkdir", "-p", "-m", "1777", "/tmp"]
COPY go /usr/local/go
ENV PATH=/usr/local/go/bin:/bin HOME=/tmp GOROOT=/usr/local/go CGO_ENABLED=0 GOTOOLCHAIN=local GOTELEMETRY=off
LABEL skewtest=1
`

// image returns the ID of skewtest/toolchain:<name>, building it from the host's toolchain
// when it is missing and name allows.
func (r *Runner) image(ctx context.Context, name string) (string, error) {
	ref := ImageRepo + ":" + name
	cli := r.provider.Client()
	if img, err := cli.ImageInspect(ctx, ref); err == nil {
		return img.ID, nil
	} else if !errdefs.IsNotFound(err) {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	host, goroot, err := hostGo(ctx)
	if err != nil {
		return "", fmt.Errorf("%w %s: %w", ErrNoImage, ref, err)
	}
	if host != name && !strings.HasPrefix(host, name+".") {
		return "", fmt.Errorf("%w %s in the engine, and the host's Go is %s: build that image yourself "+
			"(docker build -t %s, with sh and the recipe's tools) or change the versions row's toolchain",
			ErrNoImage, ref, host, ref)
	}
	busybox, err := findBusybox(r.Busybox)
	if err != nil {
		return "", fmt.Errorf("%w %s: %w", ErrNoImage, ref, err)
	}
	archive, err := os.CreateTemp("", "skewtest-toolchain-*.tar")
	if err != nil {
		return "", err
	}
	defer os.Remove(archive.Name())
	defer archive.Close()
	if err := writeContext(archive, busybox, goroot); err != nil {
		return "", fmt.Errorf("build context of %s: %w", ref, err)
	}
	if _, err := archive.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	r.logf("container: building image %s from %s and %s", ref, busybox, goroot)
	req := testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		ContextArchive: archive,
		Repo:           ImageRepo,
		Tag:            name,
		KeepImage:      true,
		BuildLogWriter: r.logWriter(),
	}}
	if _, err := r.provider.BuildImage(ctx, &req); err != nil {
		return "", fmt.Errorf("build image %s: %w", ref, err)
	}
	img, err := cli.ImageInspect(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	return img.ID, nil
}

// hostGo returns the host's Go version ("go1.26.8") and GOROOT.
func hostGo(ctx context.Context) (version, goroot string, err error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOROOT").Output()
	if err != nil {
		return "", "", fmt.Errorf("the host's go toolchain: go env: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return "", "", fmt.Errorf("go env: unexpected output %q", out)
	}
	return f[0], f[1], nil
}

// findBusybox returns a statically linked busybox: path, or the usual places.
func findBusybox(path string) (string, error) {
	cands := []string{path}
	if path == "" {
		cands = []string{"/bin/busybox", "/usr/bin/busybox"}
		if p, err := exec.LookPath("busybox"); err == nil {
			cands = append(cands, p)
		}
	}
	for _, c := range cands {
		f, err := elf.Open(c)
		if err != nil {
			continue
		}
		static := true
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				static = false
			}
		}
		f.Close()
		if static {
			return c, nil
		}
	}
	return "", ErrNoBusybox
}

// writeContext writes the image's build context as a tar: the Dockerfile, busybox, and
// GOROOT as go/ (without its tests and docs, which builds do not read).
func writeContext(w io.Writer, busybox, goroot string) error {
	tw := tar.NewWriter(w)
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		return err
	}
	if _, err := io.WriteString(tw, dockerfile); err != nil {
		return err
	}
	if err := addFile(tw, busybox, "busybox"); err != nil {
		return err
	}
	skip := map[string]bool{"test": true, "doc": true, ".git": true}
	err := filepath.WalkDir(goroot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(goroot, p)
		if err != nil {
			return err
		}
		if d.IsDir() && skip[filepath.ToSlash(rel)] {
			return filepath.SkipDir
		}
		name := filepath.ToSlash(filepath.Join("go", rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return tw.WriteHeader(&tar.Header{Name: name + "/", Typeflag: tar.TypeDir, Mode: 0o755})
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: link, Mode: 0o777})
		case info.Mode().IsRegular():
			return addFile(tw, p, name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func addFile(tw *tar.Writer, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: int64(info.Mode().Perm()), Size: info.Size()}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}
