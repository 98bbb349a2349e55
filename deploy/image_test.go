package deploy

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// programs are the standalone programs the image holds.
var programs = []string{"manager", "referee", "player", "fourplayer", "conformance"}

func TestBuildImageScriptIsValidBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	if out, err := exec.Command(bash, "-n", "build-image.sh").CombinedOutput(); err != nil {
		t.Fatalf("bash -n build-image.sh: %v\n%s", err, out)
	}
	info, err := os.Stat("build-image.sh")
	if err != nil || info.Mode()&0o111 == 0 {
		t.Fatalf("build-image.sh is not executable: %v %v", info.Mode(), err)
	}
	// Without a tag it explains itself and builds nothing.
	out, err := exec.Command(bash, "build-image.sh").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "usage:") {
		t.Errorf("build-image.sh without a tag: %v\n%s", err, out)
	}
}

// TestBuildImage builds the image with the machine's podman or docker and
// checks its configuration and its files. It takes a minute or so.
func TestBuildImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a container image: not in -short mode")
	}
	engine := ""
	for _, e := range []string{"podman", "docker"} {
		if p, err := exec.LookPath(e); err == nil {
			if err := exec.Command(p, "info").Run(); err == nil {
				engine = e
				break
			}
		}
	}
	if engine == "" {
		t.Skip("neither podman nor docker is installed and working")
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	tag := "localhost/agent-league-test:" + hex.EncodeToString(suffix)
	build := exec.Command("./build-image.sh", tag)
	build.Env = append(os.Environ(), "CONTAINER_ENGINE="+engine)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build-image.sh %s: %v\n%s", tag, err, out)
	}
	t.Cleanup(func() { _ = exec.Command(engine, "rmi", "-f", tag).Run() })

	out, err := exec.Command(engine, "image", "inspect", tag).Output()
	if err != nil {
		t.Fatalf("%s image inspect: %v", engine, err)
	}
	var images []struct {
		Os, Architecture string
		Config           struct {
			User       string
			Entrypoint []string
			Cmd        []string
			Env        []string
			WorkingDir string
			Volumes    map[string]struct{}
		}
	}
	if err := json.Unmarshal(out, &images); err != nil || len(images) != 1 {
		t.Fatalf("inspect output: %v\n%s", err, out)
	}
	cfg := images[0].Config
	if cfg.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532 (numeric, so runAsNonRoot can check it)", cfg.User)
	}
	if len(cfg.Entrypoint) != 0 || !slices.Equal(cfg.Cmd, []string{"fourplayer", "-data", "/data"}) {
		t.Errorf("entrypoint %q, cmd %q; want no entrypoint and fourplayer by default", cfg.Entrypoint, cfg.Cmd)
	}
	if !slices.Contains(cfg.Env, "PATH=/usr/local/bin") || cfg.WorkingDir != "/data" {
		t.Errorf("env %q, working dir %q", cfg.Env, cfg.WorkingDir)
	}
	if _, ok := cfg.Volumes["/data"]; !ok {
		t.Errorf("volumes %v, want /data", cfg.Volumes)
	}
	if images[0].Os != "linux" {
		t.Errorf("os %q", images[0].Os)
	}

	// The files: export a container made from the image (it is not run).
	id, err := exec.Command(engine, "create", tag).Output()
	if err != nil {
		t.Fatalf("%s create: %v", engine, err)
	}
	container := strings.TrimSpace(string(id))
	t.Cleanup(func() { _ = exec.Command(engine, "rm", "-f", container).Run() })
	fs, err := exec.Command(engine, "export", container).Output()
	if err != nil {
		t.Fatalf("%s export: %v", engine, err)
	}
	files := map[string]*tar.Header{}
	binaries := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(fs))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := "/" + strings.TrimPrefix(strings.TrimSuffix(h.Name, "/"), "./")
		files[name] = h
		if strings.HasPrefix(name, "/usr/local/bin/") {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			binaries[strings.TrimPrefix(name, "/usr/local/bin/")] = b
		}
	}
	for _, p := range programs {
		h := files["/usr/local/bin/"+p]
		if h == nil || h.Mode&0o111 == 0 || h.Uid != 0 {
			t.Errorf("/usr/local/bin/%s: %+v, want an executable owned by root", p, h)
			continue
		}
		f, err := elf.NewFile(bytes.NewReader(binaries[p]))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP || prog.Type == elf.PT_DYNAMIC {
				t.Errorf("%s is dynamically linked: the image has no libc", p)
				break
			}
		}
	}
	if h := files["/data"]; h == nil || h.Typeflag != tar.TypeDir || h.Uid != 65532 {
		t.Errorf("/data: %+v, want a directory owned by 65532", h)
	}
	for _, f := range []string{"/etc/passwd", "/etc/group"} {
		if files[f] == nil {
			t.Errorf("%s missing", f)
		}
	}
	if h := files["/etc/ssl/certs/ca-certificates.crt"]; h == nil || h.Size == 0 {
		if _, err := os.Stat("/etc/ssl/certs/ca-certificates.crt"); err == nil {
			t.Error("the build machine has CA certificates but the image does not")
		}
	}
	for name := range files {
		if strings.HasPrefix(name, "/bin/") || name == "/bin/sh" || strings.HasPrefix(name, "/lib") {
			t.Errorf("the image holds %s: it should hold the programs only", name)
		}
	}
	playInImage(t, fs)
}

// playInImage runs a whole league on the image's files as the image's user:
// the exported filesystem, entered with chroot (a container runtime may
// not be allowed to start containers where the tests run). It needs root
// and chroot, and skips otherwise.
func playInImage(t *testing.T, exported []byte) {
	t.Helper()
	chroot, err := exec.LookPath("chroot")
	if err != nil || os.Geteuid() != 0 {
		t.Log("not running a league in the image's filesystem: that needs root and chroot")
		return
	}
	root := t.TempDir()
	untar := exec.Command("tar", "-x", "-C", root)
	untar.Stdin = bytes.NewReader(exported)
	if out, err := untar.CombinedOutput(); err != nil {
		t.Fatalf("tar -x: %v\n%s", err, out)
	}
	// -ephemeral: free ports, as the host's network is shared; -exit: stop
	// once the league is over instead of serving its dashboard.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chroot, "--userspec=65532:65532", root, "/usr/local/bin/fourplayer", "-ephemeral", "-exit", "-data", "/data")
	cmd.Env = []string{"PATH=/usr/local/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Champion:") {
		t.Fatalf("fourplayer in the image as user 65532: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "data", "logs")); err != nil {
		t.Errorf("the league wrote no logs under /data: %v", err)
	}
}

// TestDockerfileMatchesTheScript checks that the multi-stage Dockerfile,
// which cannot be built without a registry, makes an image configured as
// build-image.sh's is: same programs, user, volume, command and build flags.
func TestDockerfileMatchesTheScript(t *testing.T) {
	script, err := os.ReadFile("build-image.sh")
	if err != nil {
		t.Fatal(err)
	}
	docker, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	finalStage := string(docker[bytes.LastIndex(docker, []byte("\nFROM scratch")):])
	for _, want := range []string{
		"ENV PATH=/usr/local/bin", "WORKDIR /data", `VOLUME ["/data"]`, "EXPOSE 8000 8001 8101",
		`CMD ["fourplayer", "-data", "/data"]`, "org.opencontainers.image.licenses=\"Apache-2.0\"",
	} {
		if !strings.Contains(string(script), want) || !strings.Contains(finalStage, want) {
			t.Errorf("%q is not in both build-image.sh and the Dockerfile's final stage", want)
		}
	}
	if !strings.Contains(finalStage, "USER 65532:65532") || !strings.Contains(string(script), "uid=65532") {
		t.Error("the user differs")
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-buildvcs=false", "-ldflags='-s -w'", "ca-certificates.crt",
		"manager referee player fourplayer conformance", "league:x:%d:%d:league agent:/data:/sbin/nologin"} {
		in := string(docker)
		if strings.HasPrefix(want, "league:x") {
			want = strings.ReplaceAll(want, "%d", "65532")
		}
		if !strings.Contains(in, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
	if !strings.Contains(string(script), "programs=(manager referee player fourplayer conformance)") {
		t.Error("build-image.sh builds other programs")
	}
}
