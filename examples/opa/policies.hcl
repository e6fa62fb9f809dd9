# A kind_b (OPA) policy set in upstream's layout: one block per policy, naming the query whose
# value decides (an array: empty passes, each element is a violation message).
policy "restrict_public_buckets" {
  query             = "data.terraform.policies.public_buckets.deny"
  enforcement_level = "mandatory"
  description       = "No bucket ACL may make a bucket public"
}

policy "require_owner_tag" {
  query             = "data.terraform.policies.owner_tag.deny"
  enforcement_level = "mandatory"
  description       = "Every new or changed instance has an owner tag"
}

policy "allowed_instance_types" {
  query             = "data.terraform.policies.instance_types.deny"
  enforcement_level = "advisory"
  description       = "Instances use the approved types"
}
