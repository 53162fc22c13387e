import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { END_OF_TURN_MS as MS, endOfTurnDelay, looksEnglish } from '../../src/providers/cascade/end-of-turn.js';

const cases = (lang: string | null, rows: Array<[string, number]>) => {
  for (const [text, want] of rows) assert.is(endOfTurnDelay(text, lang), want, `${JSON.stringify(text)} (${lang})`);
};

test('a finished question or exclamation ends the turn soonest, a finished sentence a little later', () => {
  cases('en', [
    ['What are your opening hours on Saturday?', MS.question],
    ['Where are you from?', MS.question],
    ['Do you deliver?"', MS.question],
    ['Thanks a lot!', MS.question],
    ['I would like a table for four.', MS.statement],
    ['Yes, I do.', MS.statement],
    ['So do I.', MS.statement],
    ['That is what it is.', MS.statement],
  ]);
  assert.ok(MS.question < MS.statement && MS.statement < MS.middle && MS.middle < MS.trailing);
  assert.is(MS.middle, 800, 'the middle pause is the old fixed rule');
});

test('words that trail off wait longer, whatever the transcriber put after them', () => {
  cases('en-GB', [
    ['I want to', MS.trailing],
    ['I want to.', MS.trailing],
    ['and also…', MS.trailing],
    ['And also...', MS.trailing],
    ['My order number is', MS.trailing],
    ['Can I have the', MS.trailing],
    ['I was wondering whether', MS.trailing],
    ['We need a table for', MS.trailing],
    ['The soup, um', MS.trailing],
    ['I would like the soup,', MS.trailing],
    ['Could you book it for Satur-', MS.trailing],
    ['and then I', MS.trailing],
    ['I would like', MS.trailing],
  ]);
});

test('no end mark, nothing heard, or a language it cannot read: the middle pause', () => {
  cases('en', [['I would like the soup', MS.middle], ['', MS.middle], ['   ', MS.middle], ['Turn it on', MS.middle]]);
  cases('fr', [['Quelles sont vos heures d\'ouverture ?', MS.middle], ['Je voudrais', MS.middle]]);
  cases('de-AT', [['Haben Sie am Sonntag geöffnet?', MS.middle]]);
});

test('an unknown language is read as English only when the words are', () => {
  assert.ok(looksEnglish('What are your opening hours on Saturday?'));
  assert.ok(looksEnglish('I want to'));
  assert.not.ok(looksEnglish('¿A qué hora abren el sábado?'));
  assert.not.ok(looksEnglish('Quelles sont vos heures ?'));
  assert.not.ok(looksEnglish('Hallo.'));
  cases(null, [
    ['What are your opening hours on Saturday?', MS.question],
    ['I want to', MS.trailing],
    ['Quiero reservar una mesa para', MS.middle],
    ['Je voudrais une table pour deux.', MS.middle],
  ]);
});

test.run();
