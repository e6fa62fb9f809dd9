package terraform.policies.owner_tag

deny contains msg if {
	r := input.plan.resource_changes[_]
	r.type == "aws_instance"
	r.change.actions[_] != "delete"
	not r.change.after.tags.owner
	msg := sprintf("%v has no owner tag (run %v in workspace %v)", [r.address, input.run.id, input.run.workspace.name])
}
