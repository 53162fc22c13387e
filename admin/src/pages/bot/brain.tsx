/** Brain: the provider connection and model that write the replies, and how they are asked. */
import { Block, Setting } from './fields.js';
import { useEditor } from './editor.js';
import { ConnectionPicker, ModelPicker } from './pickers.js';

export default function BrainGroup() {
  const ed = useEditor();
  return (
    <>
      <Block title="Model" intro="The connection and model that write every reply. A connection is added under Providers.">
        <ConnectionPicker path="brain.connectionId" label="Connection" letters={['A', 'B', 'C']} none="The first text-model connection"
          hint="A text-model provider (OpenAI, Google Gemini or an OpenAI-compatible server)" onPicked={() => ed.set('brain.model', '')} />
        <ModelPicker path="brain.model" connectionPath="brain.connectionId" fallbackConnection={ed.connections?.find((c) => c.letter !== 'D')?.id}
          capability="text" label="Model" hint="From the connection's model list; the recommended one is marked" />
        <Setting path="brain.effort" label="Reasoning effort" help="For models that reason; others ignore it" />
        <Setting path="brain.temperature" label="Temperature" nullText="model default" help="Empty uses the model's default" />
      </Block>
      <Block title="Limits">
        <Setting path="brain.maxOutputTokens" label="Longest reply" unit="tokens" help="Spoken replies are capped at 2048" />
        <Setting path="brain.maxToolRounds" label="Tool rounds per reply" />
        <Setting path="brain.compactAtTokens" label="Condense history after" unit="tokens" help="Older messages become a summary the model sees first" />
      </Block>
    </>
  );
}
