/**
 * Jest's test environment for both tiers: each file runs where its part ships to. The page and
 * the custom elements run in browsers (jsdom); everything else runs in Node.
 */
const { TestEnvironment: NodeEnvironment } = require('jest-environment-node');
const { TestEnvironment: JsdomEnvironment } = require('jest-environment-jsdom');

/** The parts whose specs run in jsdom, by their folder under spec/. */
const IN_BROWSER = /[\\/]spec[\\/](page|elements)[\\/]/;

module.exports = class PartEnvironment {
  /** Jest constructs the environment with the file's path; the one built for it is returned in its place. */
  constructor(config, context) {
    return IN_BROWSER.test(context.testPath) ? new JsdomEnvironment(config, context) : new NodeEnvironment(config, context);
  }
};
