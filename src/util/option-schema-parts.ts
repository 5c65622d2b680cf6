import { z } from "zod";

/** Zod parts the option schemas share (`init` options, `storage` config): one definition of each. */
export const whole = (min: number) => z.number().int().min(min);
export const text = () => z.string().min(1);
