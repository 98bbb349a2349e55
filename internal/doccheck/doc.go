// Package doccheck holds repository-wide tests of the module's
// documentation: every exported identifier of every non-test Go file has a
// doc comment that starts with its name, every package has a package
// comment, every doc link names something that exists, and an identifier a
// comment names in code or as a qualified name is a doc link; and that
// the packages stand in the import order docs/architecture.md draws.
//
// A test suite of the whole module, not imported by any package.
package doccheck
