// Package doccheck holds a repository-wide test: every exported identifier
// of every non-test Go file in the module has a doc comment that starts with
// its name, and every package has a package comment.
package doccheck
