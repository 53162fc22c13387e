/** Vision: image uploads and the camera, with its consent text and privacy choices. */
import { useEditor } from './editor.js';
import { Block, Setting } from './fields.js';
import { ConnectionPicker, ModelPicker } from './pickers.js';

export default function VisionGroup() {
  const ed = useEditor();
  return (
    <>
      <Block title="Images" intro="Only when the brain's model can see images.">
        <Setting path="vision.uploads.enabled" label="Visitors can attach images" />
        <Setting path="vision.uploads.maxPerMessage" label="Images per message" />
        <Setting path="vision.uploads.maxMB" label="Largest image" unit="MB" />
      </Block>
      <Block title="Camera">
        <Setting path="vision.webcam.enabled" label="Offer the camera" />
        <Setting path="vision.webcam.mode" label="When frames are sent" options={[['per_turn', 'With each message'], ['continuous', 'Continuously (live engines)'], ['on_demand', 'Only when the agent looks']]} />
        <Setting path="vision.webcam.maxFps" label="Most frames per second" />
        <Setting path="vision.webcam.maxWidth" label="Widest frame" unit="px" />
        <Setting path="vision.webcam.consentText" label="Camera prompt" kind="textarea" rows={2} help="Shown before the browser asks; accepts {{agent.name}}" />
        <Setting path="vision.webcam.privacyUrl" label="Privacy page" placeholder="https://example.com/privacy" />
        <Setting path="vision.webcam.persistFrames" label="Keep frames with the conversation" help="Off: deleted within about two hours after it ends" />
        <Setting path="vision.webcam.shareWithHumanAgents" label="Team sees frames in transcripts" />
      </Block>
      <Block title="Describing pictures for voice" intro="For voice engines that cannot see: a model that describes camera pictures in words.">
        <ConnectionPicker path="vision.proxy.connectionId" label="Connection" letters={['A', 'B', 'C']} none="The brain's connection" hint="A text-model provider" />
        <ModelPicker path="vision.proxy.model" connectionPath="vision.proxy.connectionId" fallbackConnection={ed.draft.brain?.connectionId} capability="vision" label="Model" hint="A model that can see images" emptyText="The brain's model" />
      </Block>
    </>
  );
}
