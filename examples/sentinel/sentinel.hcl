# A kind_a policy set: three policies at three enforcement levels, one shared module, one parameter.
# Upload it as a policy set version (examples/README.md). PolicyHub provides the tfplan/v2 import
# from the run's plan.

module "tfplan-functions" {
  source = "./modules/tfplan-functions.sentinel"
}

param "allowed_instance_types" {
  value = ["t3.micro", "t3.small"]
}

policy "restrict-public-buckets" {
  source            = "./policies/restrict-public-buckets.sentinel"
  enforcement_level = "hard-mandatory"
}

policy "require-owner-tag" {
  source            = "./policies/require-owner-tag.sentinel"
  enforcement_level = "soft-mandatory"
}

policy "allowed-instance-types" {
  source            = "./policies/allowed-instance-types.sentinel"
  enforcement_level = "advisory"
}
