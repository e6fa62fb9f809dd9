package terraform.policies.public_buckets

# v1 syntax (OPA 1.x; the set's policy-tool-version is "latest" or 1.0 and later).
deny contains msg if {
	r := input.plan.resource_changes[_]
	r.type == "aws_s3_bucket_acl"
	r.change.after.acl == "public-read"
	msg := sprintf("%v makes bucket %v public", [r.address, r.change.after.bucket])
}
