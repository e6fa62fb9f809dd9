# The configuration go-tfe's run fixtures upload (helper_test.go reads test-fixtures/config-version
# relative to the working directory; Debian's package does not ship the fixtures). One resource
# to create, so a plan of it has changes: test-fixtures/plan.json is that plan, which the suite's
# executor uploads for every run. scripts/go-tfe-suite.sh runs the tests from scripts/go-tfe/.
resource "null_resource" "example" {}
