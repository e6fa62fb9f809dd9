package tfe

// PolicyHub's own additions to go-tfe 0.11.1's test binary (scripts/go-tfe-suite.sh compiles this
// file into the package next to go-tfe's tests). go-tfe 0.11.1 decodes none of the names that
// differ between PolicyHub's vocabulary profiles (policy kinds, the agent attributes of policy
// sets, the engine key of a policy check's result, the admin organization's timeout and sudo
// attributes: it predates them), so its own tests pass in either profile. These tests decode
// those names as later go-tfe releases (1.x) declare them, with go-tfe's own request path and
// JSON:API decoder, so that a `tfe` profile answering anything else fails here. In the default
// (`spec`) profile they are expected to fail; scripts/go-tfe/expected.spec.txt says why.

import (
	"bytes"
	"context"
	"encoding/json"
	"io/ioutil"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upstreamPolicySet holds the attributes go-tfe 1.x's PolicySet adds to 0.11.1's.
type upstreamPolicySet struct {
	ID                string `jsonapi:"primary,policy-sets"`
	Name              string `jsonapi:"attr,name"`
	Kind              string `jsonapi:"attr,kind"`
	Overridable       *bool  `jsonapi:"attr,overridable"`
	AgentEnabled      bool   `jsonapi:"attr,agent-enabled"`
	PolicyToolVersion string `jsonapi:"attr,policy-tool-version"`
}

// upstreamPolicySetCreateOptions is go-tfe 1.x's PolicySetCreateOptions, less VCS and linkage.
type upstreamPolicySetCreateOptions struct {
	Type              string  `jsonapi:"primary,policy-sets"`
	Name              *string `jsonapi:"attr,name"`
	Kind              *string `jsonapi:"attr,kind,omitempty"`
	Overridable       *bool   `jsonapi:"attr,overridable,omitempty"`
	AgentEnabled      *bool   `jsonapi:"attr,agent-enabled,omitempty"`
	PolicyToolVersion *string `jsonapi:"attr,policy-tool-version,omitempty"`
}

// upstreamPolicy holds the attribute go-tfe 1.x's Policy adds to 0.11.1's.
type upstreamPolicy struct {
	ID   string `jsonapi:"primary,policies"`
	Kind string `jsonapi:"attr,kind"`
}

// upstreamAdminOrganization is the part of go-tfe 1.x's AdminOrganization the profiles rename.
type upstreamAdminOrganization struct {
	Name                             string `jsonapi:"primary,organizations"`
	TerraformBuildWorkerApplyTimeout string `jsonapi:"attr,terraform-build-worker-apply-timeout"`
	TerraformBuildWorkerPlanTimeout  string `jsonapi:"attr,terraform-build-worker-plan-timeout"`
	TerraformWorkerSudoEnabled       bool   `jsonapi:"attr,terraform-worker-sudo-enabled"`
}

// upstreamAdminOrganizationUpdateOptions is the part of go-tfe 1.x's AdminOrganizationUpdateOptions
// the profiles rename.
type upstreamAdminOrganizationUpdateOptions struct {
	Type                             string  `jsonapi:"primary,organizations"`
	TerraformBuildWorkerApplyTimeout *string `jsonapi:"attr,terraform-build-worker-apply-timeout,omitempty"`
	TerraformBuildWorkerPlanTimeout  *string `jsonapi:"attr,terraform-build-worker-plan-timeout,omitempty"`
}

// upstreamCall sends one request through go-tfe's client and decodes the answer into v.
func upstreamCall(t *testing.T, client *Client, method, path string, body, v interface{}) {
	t.Helper()
	req, err := client.newRequest(method, path, body)
	require.NoError(t, err)
	require.NoError(t, client.do(context.Background(), req, v))
}

// upstreamAttributes reads a resource's raw attributes, to tell a missing name from a zero value.
func upstreamAttributes(t *testing.T, client *Client, path string) map[string]json.RawMessage {
	t.Helper()
	raw := bytes.NewBuffer(nil)
	upstreamCall(t, client, "GET", path, nil, raw)
	var doc struct {
		Data struct {
			Attributes map[string]json.RawMessage `json:"attributes"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(raw.Bytes(), &doc))
	return doc.Data.Attributes
}

func TestUpstreamNamesPolicySets(t *testing.T) {
	client := testClient(t)
	orgTest, orgTestCleanup := createOrganization(t, client)
	defer orgTestCleanup()

	t.Run("a set created by go-tfe 0.11.1 reads as kind sentinel without agent attributes", func(t *testing.T) {
		psTest, psTestCleanup := createPolicySet(t, client, orgTest, nil, nil)
		defer psTestCleanup()

		ps := &upstreamPolicySet{}
		upstreamCall(t, client, "GET", "policy-sets/"+psTest.ID, nil, ps)
		assert.Equal(t, "sentinel", ps.Kind)
		assert.False(t, ps.AgentEnabled)
		assert.Nil(t, ps.Overridable)
		assert.Equal(t, "", ps.PolicyToolVersion)
	})

	t.Run("an opa set created with kind opa reads back opa, overridable and agent-enabled", func(t *testing.T) {
		ps := &upstreamPolicySet{}
		upstreamCall(t, client, "POST", "organizations/"+orgTest.Name+"/policy-sets", &upstreamPolicySetCreateOptions{
			Name:        String(randomString(t)),
			Kind:        String("opa"),
			Overridable: Bool(true),
		}, ps)
		assert.Equal(t, "opa", ps.Kind)
		require.NotNil(t, ps.Overridable)
		assert.True(t, *ps.Overridable)
		assert.True(t, ps.AgentEnabled)
	})

	t.Run("a sentinel set without the agent accepts and ignores overridable and policy-tool-version", func(t *testing.T) {
		ps := &upstreamPolicySet{}
		upstreamCall(t, client, "POST", "organizations/"+orgTest.Name+"/policy-sets", &upstreamPolicySetCreateOptions{
			Name:              String(randomString(t)),
			Kind:              String("sentinel"),
			Overridable:       Bool(true),
			PolicyToolVersion: String("0.26.0"),
		}, ps)
		assert.Equal(t, "sentinel", ps.Kind)
		assert.Nil(t, ps.Overridable)
		assert.Equal(t, "", ps.PolicyToolVersion)
	})
}

func TestUpstreamNamesPolicies(t *testing.T) {
	client := testClient(t)
	pTest, pTestCleanup := createPolicy(t, client, nil)
	defer pTestCleanup()

	p := &upstreamPolicy{}
	upstreamCall(t, client, "GET", "policies/"+pTest.ID, nil, p)
	assert.Equal(t, "sentinel", p.Kind)
}

func TestUpstreamNamesPolicyChecks(t *testing.T) {
	client := testClient(t)
	ctx := context.Background()
	orgTest, orgTestCleanup := createOrganization(t, client)
	defer orgTestCleanup()

	pTest, _ := createUploadedPolicy(t, client, true, orgTest)
	wTest, _ := createWorkspace(t, client, orgTest)
	createPolicySet(t, client, orgTest, []*Policy{pTest}, []*Workspace{wTest})
	rTest, _ := createPlannedRun(t, client, wTest)
	require.Equal(t, 1, len(rTest.PolicyChecks))
	pcID := rTest.PolicyChecks[0].ID

	t.Run("the result hash carries the engine under sentinel", func(t *testing.T) {
		var result map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(upstreamAttributes(t, client, "policy-checks/"+pcID)["result"], &result))
		var keys []string
		for key := range result {
			keys = append(keys, key)
		}
		assert.Contains(t, keys, "sentinel")
	})

	t.Run("the text report opens with Sentinel Result", func(t *testing.T) {
		logs, err := client.PolicyChecks.Logs(ctx, pcID)
		require.NoError(t, err)
		text, err := ioutil.ReadAll(logs)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(text), "Sentinel Result: true"), "report starts %q", firstLine(string(text)))
	})
}

func TestUpstreamNamesAdminOrganizations(t *testing.T) {
	client := testClient(t)
	orgTest, orgTestCleanup := createOrganization(t, client)
	defer orgTestCleanup()
	path := "admin/organizations/" + orgTest.Name

	t.Run("the timeout and sudo attributes carry upstream names", func(t *testing.T) {
		var names []string
		for name := range upstreamAttributes(t, client, path) {
			names = append(names, name)
		}
		for _, name := range []string{
			"terraform-build-worker-apply-timeout",
			"terraform-build-worker-plan-timeout",
			"terraform-worker-sudo-enabled",
		} {
			assert.Contains(t, names, name)
		}
	})

	t.Run("timeouts set under upstream names read back under them", func(t *testing.T) {
		org := &upstreamAdminOrganization{}
		upstreamCall(t, client, "PATCH", path, &upstreamAdminOrganizationUpdateOptions{
			TerraformBuildWorkerApplyTimeout: String("12h"),
			TerraformBuildWorkerPlanTimeout:  String("90m"),
		}, org)
		assert.Equal(t, "12h", org.TerraformBuildWorkerApplyTimeout)
		assert.Equal(t, "90m", org.TerraformBuildWorkerPlanTimeout)
		assert.False(t, org.TerraformWorkerSudoEnabled)
	})
}

func firstLine(s string) string {
	return strings.SplitN(s, "\n", 2)[0]
}
