import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tfplanV2 } from '../src/engines/sentinel/mock-data.js';

const examples = fileURLToPath(new URL('../../../examples/', import.meta.url));

// What examples/sentinel and examples/opa declare is read (once, at upload) by storage and tested
// there (services/storage/test/archive-layouts.test.ts).
describe('examples/', () => {
  it('the plan gives the tfplan/v2 data the policies read', () => {
    const data = tfplanV2(JSON.parse(readFileSync(`${examples}plans/soft-fail.json`, 'utf8')));
    const rc = data.resource_changes as Record<
      string,
      { change: { after: { tags?: Record<string, string> } } }
    >;
    expect(Object.keys(rc)).toEqual(['aws_instance.web', 'aws_s3_bucket_acl.logs']);
    expect(rc['aws_instance.web']!.change.after.tags).not.toHaveProperty('owner');
  });
});
