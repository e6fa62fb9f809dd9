package terraform.policies.instance_types

allowed := {"t3.micro", "t3.small", "t3.medium"}

deny contains msg if {
	r := input.plan.resource_changes[_]
	r.type == "aws_instance"
	not r.change.after.instance_type in allowed
	msg := sprintf("%v uses instance type %v", [r.address, r.change.after.instance_type])
}
