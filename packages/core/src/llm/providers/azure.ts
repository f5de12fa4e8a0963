import { aiSdk, defineProvider } from "./definition.js";

export const azure = defineProvider({
  name: "azure",
  // The model part of `azure/<name>` is the deployment name, as Azure addresses models.
  help: { label: "Azure OpenAI", exampleModel: "my-gpt-5-deployment" },
  env: {
    apiKey: "AZURE_API_KEY",
    apiKeyRequired: true,
    baseURL: "AZURE_BASE_URL",
    defaultBaseURL: undefined,
    baseURLHint: "https://<resource>.openai.azure.com/openai",
  },
  // The package's language models are its Responses API models.
  ...aiSdk("azure.responses", async () => (await import("@ai-sdk/azure")).createAzure, { embeddings: true }),
  // A deployment's name says nothing of the model behind it; left to guess from that name, the AI SDK
  // drops the reasoning options of every custom-named deployment, so reasoning is forced on.
  thinking: () => ({ azure: { reasoningSummary: "auto", forceReasoning: true } }),
});
