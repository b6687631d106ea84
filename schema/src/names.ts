// Names of plots and jobs: what a user may type, and the room the server has when it makes one up.
import { z } from 'zod';

export const NAME_MAX = 200;
export const Name = z.string().trim().min(1).max(NAME_MAX);
