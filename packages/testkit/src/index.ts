export { abortError, isAbortError } from "./abort.js";
export { type Clock, type ManualClock, manualClock, realClock } from "./clock.js";
export { ScriptExhaustedError } from "./errors.js";
export { hashedBagOfWords } from "./fake-embeddings.js";
export {
  type FakeOpenAIOptions,
  type FakeOpenAIServer,
  type RecordedRequest,
  startFakeOpenAI,
} from "./fake-openai-server.js";
export { type ProviderWire, wireShape } from "./provider-wire.js";
export {
  type RecordedProviderOptions,
  type RecordedProviderServer,
  startRecordedProvider,
} from "./recorded-provider-server.js";
export { type RecordedReply, recordedEvents, recordedResponses, recordedStream } from "./recorded-streams.js";
export { type RoutedModelOptions, routedModel, taskModels, taskOf } from "./routed-model.js";
export {
  type DelayAction,
  delay,
  type ErrorAction,
  error,
  type FinishAction,
  finish,
  type HangAction,
  hang,
  type MalformedAction,
  malformed,
  type ReasoningAction,
  reasoning,
  type Script,
  type ScriptAction,
  type ScriptFinishReason,
  type ScriptStep,
  type StepContext,
  type TextAction,
  type ToolCallAction,
  text,
  toolCall,
  type UsageAction,
  usage,
} from "./script.js";
export { type RecordedCall, type ScriptedModel, type ScriptedModelOptions, scriptedModel } from "./scripted-model.js";
