/** Tests read /metrics with the capacity test's parser. */
export { parseMetrics, value, type Sample } from '../../src/loadtest/prom-text.js';
