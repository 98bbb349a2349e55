package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// workflowStep is a step of a job of the workflows below.
type workflowStep struct {
	Name string            `json:"name"`
	Uses string            `json:"uses"`
	With map[string]any    `json:"with"`
	Run  string            `json:"run"`
	Env  map[string]string `json:"env"`
}

// readWorkflow decodes .github/workflows/<name> strictly into w.
func readWorkflow(t *testing.T, name string, w any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", ".github", "workflows", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(raw, w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// ciWorkflow is the part of a GitHub Actions workflow that
// .github/workflows/ci.yml may use: anything else fails the strict decode.
type ciWorkflow struct {
	Name        string            `json:"name"`
	On          map[string]any    `json:"on"`
	Permissions map[string]string `json:"permissions"`
	Jobs        map[string]struct {
		Name           string `json:"name"`
		RunsOn         string `json:"runs-on"`
		TimeoutMinutes int    `json:"timeout-minutes"`
		Strategy       struct {
			FailFast bool `json:"fail-fast"`
			Matrix   struct {
				Go []string `json:"go"`
			} `json:"matrix"`
		} `json:"strategy"`
		Steps []workflowStep `json:"steps"`
	} `json:"jobs"`
}

// TestCIWorkflowRunsTheCIScript decodes the code host's workflow strictly
// and checks that it runs .ci/run, and nothing else, on every push and pull
// request, with the oldest Go release the module supports and the latest,
// and the module cache kept between runs.
func TestCIWorkflowRunsTheCIScript(t *testing.T) {
	var w ciWorkflow
	readWorkflow(t, "ci.yml", &w)
	for _, event := range []string{"push", "pull_request"} {
		if _, ok := w.On[event]; !ok {
			t.Errorf("ci.yml does not run on %s (on: %v)", event, w.On)
		}
	}
	if len(w.Jobs) != 1 {
		t.Fatalf("ci.yml has %d jobs, want one", len(w.Jobs))
	}

	// The oldest release is the go directive's, as in .ci/run.
	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	oldest := string(m[1])
	script, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\bgo` + regexp.QuoteMeta(oldest) + `\.\d+\b`).Match(script) { // a toolchain of GOTOOLCHAIN
		t.Errorf(".ci/run does not test with a Go %s toolchain, the go directive's release", oldest)
	}
	if !regexp.MustCompile(`(?m)^NEWEST_GO=go\d+\.\d+\.\d+$`).Match(script) {
		t.Errorf(".ci/run names no newest Go release (NEWEST_GO=go1.N.P) to test with")
	}

	for id, job := range w.Jobs {
		if job.TimeoutMinutes < 1 || job.TimeoutMinutes > 90 {
			t.Errorf("job %s: timeout-minutes %d, want CI's bound, at most 90", id, job.TimeoutMinutes)
		}
		if want := []string{oldest + ".x", "stable"}; !slices.Equal(job.Strategy.Matrix.Go, want) {
			t.Errorf("job %s: Go releases %v, want %v", id, job.Strategy.Matrix.Go, want)
		}
		var uses, runs []string
		for _, s := range job.Steps {
			switch {
			case s.Uses != "" && s.Run != "":
				t.Errorf("job %s: a step both uses %s and runs %q", id, s.Uses, s.Run)
			case s.Uses != "":
				uses = append(uses, s.Uses[:strings.Index(s.Uses+"@", "@")])
				if strings.HasPrefix(s.Uses, "actions/setup-go@") {
					if s.With["go-version"] != "${{ matrix.go }}" {
						t.Errorf("job %s: setup-go installs %v, not the matrix's release", id, s.With["go-version"])
					}
					if c, ok := s.With["cache"]; ok && c != true {
						t.Errorf("job %s: setup-go's module cache is off (cache: %v)", id, c)
					}
				}
			default:
				runs = append(runs, s.Run)
				if s.Env["CI"] != "true" {
					t.Errorf("job %s: %q runs without CI=true", id, s.Run)
				}
			}
		}
		if !slices.Equal(uses, []string{"actions/checkout", "actions/setup-go"}) {
			t.Errorf("job %s uses %v, want actions/checkout then actions/setup-go", id, uses)
		}
		if !slices.Equal(runs, []string{"bash .ci/run"}) {
			t.Errorf("job %s runs %q, want only bash .ci/run: a check belongs in .ci/run", id, runs)
		}
	}
}

// releaseWorkflow is the part of a GitHub Actions workflow that
// .github/workflows/release.yml may use: anything else fails the strict
// decode.
type releaseWorkflow struct {
	Name string `json:"name"`
	On   struct {
		Push struct {
			Tags []string `json:"tags"`
		} `json:"push"`
	} `json:"on"`
	Permissions map[string]string `json:"permissions"`
	Jobs        map[string]struct {
		Name           string         `json:"name"`
		RunsOn         string         `json:"runs-on"`
		TimeoutMinutes int            `json:"timeout-minutes"`
		Steps          []workflowStep `json:"steps"`
	} `json:"jobs"`
}

// TestReleaseWorkflowPublishesTheCIBuild decodes the release workflow
// strictly and checks that on a version tag, and only then, it checks the
// tag (.ci/release-notes), builds with the script .ci/run also runs
// (.ci/build-release) and attaches what it built to the tag's release;
// and that .ci/run runs both scripts, so that the workflow's steps are
// tried on every change.
func TestReleaseWorkflowPublishesTheCIBuild(t *testing.T) {
	var w releaseWorkflow
	readWorkflow(t, "release.yml", &w)
	if !slices.Equal(w.On.Push.Tags, []string{"v*"}) {
		t.Errorf("release.yml runs on tags %v, want [v*]", w.On.Push.Tags)
	}
	if len(w.Permissions) != 1 || w.Permissions["contents"] != "write" {
		t.Errorf("release.yml's permissions %v, want only contents: write (to create the release)", w.Permissions)
	}
	if len(w.Jobs) != 1 {
		t.Fatalf("release.yml has %d jobs, want one", len(w.Jobs))
	}
	for id, job := range w.Jobs {
		if job.TimeoutMinutes < 1 {
			t.Errorf("job %s has no timeout-minutes", id)
		}
		var uses, runs []string
		for _, s := range job.Steps {
			if s.Uses != "" {
				uses = append(uses, s.Uses[:strings.Index(s.Uses+"@", "@")])
				continue
			}
			runs = append(runs, strings.Fields(s.Run)[0])
			if strings.HasPrefix(s.Run, ".ci/") && !strings.Contains(s.Run, `"$GITHUB_REF_NAME"`) {
				t.Errorf("job %s: %q is not given the tag", id, s.Run)
			}
			if strings.HasPrefix(s.Run, "gh release create") && s.Env["GH_TOKEN"] == "" {
				t.Errorf("job %s: %q runs without GH_TOKEN", id, s.Run)
			}
		}
		if !slices.Equal(uses, []string{"actions/checkout", "actions/setup-go"}) {
			t.Errorf("job %s uses %v, want actions/checkout then actions/setup-go", id, uses)
		}
		if want := []string{".ci/release-notes", ".ci/build-release", "gh"}; !slices.Equal(runs, want) {
			t.Errorf("job %s runs %v, want %v: the checks and the build belong in the scripts", id, runs, want)
		}
	}

	script, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{".ci/release-notes", ".ci/build-release"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(s) + ` `).Match(script) {
			t.Errorf(".ci/run does not run %s, which the release workflow runs", s)
		}
	}
}

// TestEveryWorkflowIsDecoded: the workflows are the two the tests above
// decode, so that a new one comes with its test.
func TestEveryWorkflowIsDecoded(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", ".github", "workflows"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"ci.yml", "release.yml"}; !slices.Equal(names, want) {
		t.Errorf(".github/workflows holds %v, want %v", names, want)
	}
}
