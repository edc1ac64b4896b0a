// Policy files: remembered `always` approvals, Claude Code and Gemini CLI importers.
export { appendPolicyRule, createRulePersister, policyFilePaths, readPolicyFile, type PolicyFile } from './policy/policy-file.js';
export { claudeSettingsFiles, loadClaudeSettings, type LoadClaudeSettingsOptions } from './policy/load-claude-settings.js';
export { loadGeminiPolicies, type LoadGeminiPoliciesOptions } from './policy/load-gemini-policies.js';
