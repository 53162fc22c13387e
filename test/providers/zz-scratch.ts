import OpenAI from 'openai';
const c = new OpenAI({ apiKey: 'x', baseURL: 'http://127.0.0.1:1/v1', maxRetries: 0 });
try { await c.models.list(); } catch (e: any) { console.log(e.name, e.code, e.cause?.name, e.cause?.code, e.cause?.cause?.code, e.cause?.cause); }
