// Package deploy holds the container image build and the Kubernetes
// manifests of the league's standalone programs, and the tests that check
// them: every manifest decodes strictly into the Kubernetes API types and
// has the properties the operating guide promises. The repository's CI
// workflow for the code host (.github/workflows/ci.yml) is checked here
// too, decoded as strictly, since this module has the YAML decoder the
// SDK's go.mod does without.
package deploy
