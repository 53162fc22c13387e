/** Voice: on or off, which engine (realtime, cascade, hosted agent) and its connection, model and voice, and limits. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useEditor } from './editor.js';
import { Block, Setting } from './fields.js';
import { ConnectionPicker, ModelPicker, VoicePicker } from './pickers.js';
import { VOICE_LETTERS } from '../providers/model.js';

interface VoiceHealth { lastFailure: { at: number; stage: string; message: string } | null; failuresSinceOk: number }

const STAGES: Record<string, string> = { start: 'Starting voice', engine: 'The voice engine', stt: 'Speech to text', brain: 'The brain', tts: 'Text to speech' };

/** Bot health: the last voice failure visitors met, with the provider's words (visitors only read a short line). */
function VoiceHealthNote({ botId }: { botId: string }) {
  const [h, setH] = useState<VoiceHealth | null>(null);
  useEffect(() => { api<{ voice: VoiceHealth }>('GET', `/bots/${botId}/health`).then((r) => setH(r.voice), () => setH(null)); }, [botId]);
  const f = h?.lastFailure;
  if (!f || !h.failuresSinceOk) return null;
  return (
    <div class="problems-box error voice-health" role="status">
      <p><strong>Voice is failing for visitors</strong> ({h.failuresSinceOk} time{h.failuresSinceOk === 1 ? '' : 's'} since it last started; last {new Date(f.at).toLocaleString()}).
        Visitors are told voice is not available and to keep chatting. Fix the setting or connection below, then publish.</p>
      <p><small>{STAGES[f.stage] ?? f.stage}: {f.message}</small></p>
    </div>
  );
}

export default function VoiceGroup() {
  const ed = useEditor();
  const v = ed.draft.voice ?? {};
  const brain = ed.draft.brain?.connectionId ?? null;
  const noVoiceProvider = ed.connections !== null && !ed.connections.some((c) => VOICE_LETTERS.includes(c.letter));
  return (
    <>
      <VoiceHealthNote botId={ed.botId} />
      {noVoiceProvider && (
        <p class="notice warn wide no-voice-provider" role="note">
          None of your connections can speak yet, so voice stays off for visitors. To talk with visitors, connect OpenAI, Google Gemini
          or a speech provider under <a href="#/providers">Providers</a>, then choose it here.
        </p>
      )}
      <Block title="Voice conversations">
        <Setting path="voice.enabled" label="Voice on" help="The microphone button appears once the engine below is fully set up" />
        <Setting path="voice.mode" label="Engine" options={[['realtime', 'Realtime (speech to speech)'], ['cascade', 'Cascade (speech to text, brain, text to speech)'], ['hosted_agent', 'Hosted voice agent']]} />
      </Block>
      {v.mode === 'realtime' && (
        <Block title="Realtime engine" intro="OpenAI or Google Gemini; empty uses the brain's connection when it can.">
          <ConnectionPicker path="voice.realtime.connectionId" label="Connection" letters={['B', 'C']} none="The brain's connection" hint="A provider with a realtime voice engine" />
          <ModelPicker path="voice.realtime.model" connectionPath="voice.realtime.connectionId" fallbackConnection={brain} capability="realtime" label="Realtime model" hint="A realtime model of that connection" emptyText="Provider default" />
          <VoicePicker path="voice.realtime.voice" connectionPath="voice.realtime.connectionId" fallbackConnection={brain} label="Voice" hint="How the agent sounds" />
          <Setting path="voice.realtime.turnDetection" label="Turn detection" options={[['semantic_vad', 'Wait for a finished thought'], ['server_vad', 'Answer after a pause']]} help="OpenAI only" />
          <Setting path="voice.realtime.eagerness" label="Eagerness" help="OpenAI with finished-thought detection: how quickly it answers" />
        </Block>
      )}
      {v.mode === 'cascade' && (
        <Block title="Cascade engine" intro="Speech to text, then the brain, then text to speech.">
          <ConnectionPicker path="voice.cascade.stt.connectionId" label="Speech to text connection" letters={['B', 'D']} none="The brain's connection" hint="OpenAI or a speech provider" />
          <ModelPicker path="voice.cascade.stt.model" connectionPath="voice.cascade.stt.connectionId" fallbackConnection={brain} capability="stt" label="Transcription model" hint="Empty uses the provider's default" emptyText="Provider default" />
          <Setting path="voice.cascade.stt.language" label="Language hint" help="Empty: the bot's language when fixed, else detected" />
          <ConnectionPicker path="voice.cascade.tts.connectionId" label="Text to speech connection" letters={['B', 'C', 'D']} none="The brain's connection" hint="A speech provider, OpenAI or Google Gemini" />
          <ModelPicker path="voice.cascade.tts.model" connectionPath="voice.cascade.tts.connectionId" fallbackConnection={brain} capability="tts" label="Speech model" hint="Empty uses the provider's default" emptyText="Provider default" />
          <VoicePicker path="voice.cascade.tts.voice" connectionPath="voice.cascade.tts.connectionId" fallbackConnection={brain} label="Voice" hint="How the agent sounds" />
          <Setting path="voice.cascade.tts.speed" label="Speaking speed" help="OpenAI and speech providers" />
          <Setting path="voice.cascade.tts.style" label="Speaking style" kind="textarea" rows={2} help="In words; OpenAI and Gemini" placeholder="Warm and calm, a little slower than usual" />
        </Block>
      )}
      {v.mode === 'hosted_agent' && (
        <Block title="Hosted voice agent" intro="A voice agent the speech provider hosts; the server keeps it in step with these settings.">
          <ConnectionPicker path="voice.hostedAgent.connectionId" label="Connection" letters={['D']} none="Not chosen" hint="A speech provider" />
          <VoicePicker path="voice.hostedAgent.voice" connectionPath="voice.hostedAgent.connectionId" label="Voice" hint="How the agent sounds" />
          <Setting path="voice.hostedAgent.ttsModel" label="Speech model" help="Empty uses the provider's default" />
          <Setting path="voice.hostedAgent.llm" label="Language model" help="Empty uses the provider's default" />
        </Block>
      )}
      <Block title="Talking">
        <Setting path="voice.bargeIn" label="Visitors can interrupt" help="Push-to-talk always interrupts" />
        <Setting path="voice.pushToTalk" label="Push to talk" options={[['off', 'Off'], ['allowed', 'Allowed (hands-free by default)'], ['only', 'Only push to talk']]} />
        <Setting path="voice.maxSessionMinutes" label="Longest voice conversation" unit="minutes" />
        <Setting path="voice.idleSeconds" label="End after silence" unit="seconds" />
      </Block>
    </>
  );
}
