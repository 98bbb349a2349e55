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

// ciWorkflow is the part of a GitHub Actions workflow that
// .github/workflows/ci.yml may use: anything else fails the strict decode.
type ciWorkflow struct {
	Name        string            `json:"name"`
	On          map[string]any    `json:"on"`
	Permissions map[string]string `json:"permissions"`
	Jobs        map[string]struct {
		Name     string `json:"name"`
		RunsOn   string `json:"runs-on"`
		Strategy struct {
			FailFast bool `json:"fail-fast"`
			Matrix   struct {
				Go []string `json:"go"`
			} `json:"matrix"`
		} `json:"strategy"`
		Steps []struct {
			Name string            `json:"name"`
			Uses string            `json:"uses"`
			With map[string]any    `json:"with"`
			Run  string            `json:"run"`
			Env  map[string]string `json:"env"`
		} `json:"steps"`
	} `json:"jobs"`
}

// TestCIWorkflowRunsTheCIScript decodes the code host's workflow strictly
// and checks that it runs .ci/run, and nothing else, on every push and pull
// request, with the oldest Go release the module supports and the latest,
// and the module cache kept between runs.
func TestCIWorkflowRunsTheCIScript(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", ".github", "workflows", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var w ciWorkflow
	if err := yaml.UnmarshalStrict(raw, &w); err != nil {
		t.Fatalf("ci.yml: %v", err)
	}
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
