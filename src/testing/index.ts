// Test helpers: a fake host, an event recorder and a scripted approver.
export { createFakeHost, type FakeHost, type FakeHostCall, type FakeHostOptions, type FakeScript } from './create-fake-host.js';
export { recordEvents, type EventRecording, type RecordedEvent } from './record-events.js';
export { createScriptedApprover, type ScriptedAnswer, type ScriptedApprover } from './create-scripted-approver.js';
