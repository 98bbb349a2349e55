// Package deploy holds the container image build and the Kubernetes
// manifests of the league's standalone programs, and the tests that check
// them: every manifest decodes strictly into the Kubernetes API types and
// has the properties the operating guide promises.
package deploy
