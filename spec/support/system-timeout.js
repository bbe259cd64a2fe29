/**
 * The system tier's time per test: 30 s rather than Jest's 5 s. Its files drive whole programs
 * (Chromium, Redis failovers, built servers) and mostly wait on them; a file may still set more.
 * Set here, per project, so that both tiers can run in one Jest run, each with its own.
 */
require('@jest/globals').jest.setTimeout(30_000);
