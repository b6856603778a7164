// What the module adds to Foundry's types (declaration merging, as the Foundry types package
// asks for): its settings, its flags, and that its code runs once Foundry is ready.
import type { Overlay } from "../scripts/mirror.js";

declare global {
  interface AssumeHookRan {
    ready: never;
  }

  interface SettingConfig {
    "stablemaster-bridge.link": string;
    "stablemaster-bridge.mapping": string;
    "stablemaster-bridge.answerRolls": boolean;
    "stablemaster-bridge.publicToken": string;
  }

  interface FlagConfig {
    Combat: {
      "stablemaster-bridge": { encounter?: string; turnId?: string | null; current?: string | null; timer?: import("../scripts/timer.js").TimerFlags | null; replay?: boolean };
    };
    Combatant: {
      "stablemaster-bridge": { combatant?: string };
    };
    Token: {
      "stablemaster-bridge": { overlay?: Overlay | null };
    };
  }
}

export {};
