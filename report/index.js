// The report step's script, bundled with the action's (scripts/bundle-action.mjs).
import '../action/dist/report.js';
