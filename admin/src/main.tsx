/** The admin panel's entry: draws the app into #app (the page loads this as a module, no inline script). */
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

render(<App />, document.getElementById('app')!);
