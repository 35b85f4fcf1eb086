// A deterministic stand-in for a model, for promptfoo's file:// provider: no network, no randomness.
// config.skill sets how often it is right; the answer depends on the question (vars a, b), the repeat
// (context.repeatIndex) and the skill, so repeats of a case can disagree. It reports a made-up latency
// (latencyMs) and a cost per call (cost, dollars), which promptfoo copies into results.json.
class ArithmeticModel {
  constructor(options = {}) {
    this.providerId = options.id || 'file://provider.js';
    this.config = options.config || {};
  }

  id() {
    return this.providerId;
  }

  async callApi(prompt, context) {
    const vars = (context && context.vars) || {};
    const a = Number(vars.a);
    const b = Number(vars.b);
    const repeat = (context && context.repeatIndex) || 0;
    const skill = this.config.skill || 'careful';
    const step = { careful: 1, sloppy: 2, guess: 3 }[skill] || 1;
    const latencyMs = this.config.baseMs + ((a * 37 + b * 11 + repeat * 53) % 400);
    const cost = this.config.pricePerToken * prompt.length;
    if (skill === 'sloppy' && a === 7 && repeat === 1) {
      return { error: 'simulated timeout after 30 s', latencyMs, cost };
    }
    // right unless (a + b + repeat) is divisible by 5 - step (careful: about 1 in 4 wrong, sloppy: 1 in 3), and
    // the guesser is right only when (a * b + repeat) is even
    let right = (a + b + repeat) % (5 - step) !== 0;
    if (skill === 'guess') right = (a * b + repeat) % 2 === 0;
    const output = String(right ? a + b : a + b + step);
    return { output, latencyMs, cost, tokenUsage: { prompt: prompt.length, completion: output.length, total: prompt.length + output.length } };
  }
}

module.exports = ArithmeticModel;
