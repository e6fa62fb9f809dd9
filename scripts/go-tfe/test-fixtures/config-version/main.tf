# The configuration go-tfe's run fixtures upload (helper_test.go reads test-fixtures/config-version
# relative to the working directory; Debian's package does not ship the fixtures).
# scripts/go-tfe-suite.sh runs the tests from scripts/go-tfe/.
terraform {}
